import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { FEEDBACK_CATEGORIES, listFeedback, submitFeedback } from '../../domain/feedback.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text, TextMatching } from '../../schemas/text.ts';

const FeedbackSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  category: Type.String(),
  message: Type.String(),
  page: Type.Union([Type.String(), Type.Null()]),
  user_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

export function registerList(app: App, ctx: Context): void {
  app.get(
    '/v1/feedback',
    {
      schema: {
        tags: ['feedback'],
        summary: 'Feedback your org submitted, newest first',
        response: { 200: Type.Array(FeedbackSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listFeedback(ctx.db, callerOf(request).orgId),
  );
}

export function registerSubmit(app: App, ctx: Context): void {
  app.post(
    '/v1/feedback',
    {
      schema: {
        tags: ['feedback'],
        summary: 'Send feedback to the Arbiter team',
        body: Type.Object(
          {
            message: TextMatching('\\S', { minLength: 1, maxLength: 5000 }),
            category: Type.Optional(Type.Enum(FEEDBACK_CATEGORIES)),
            page: Type.Optional(Text({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: FeedbackSchema, ...problemResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      reply.status(201);
      return submitFeedback(ctx.db, callerOf(request), request.body);
    },
  );
}

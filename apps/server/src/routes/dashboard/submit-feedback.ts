import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { FEEDBACK_CATEGORIES, submitFeedback } from '../../domain/feedback.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text, TextMatching } from '../../schemas/text.ts';
import { FeedbackSchema } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
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

import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { listFeedback } from '../../domain/feedback.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { FeedbackSchema } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
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

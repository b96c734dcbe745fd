import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { rotateWebhookSecret } from '../../domain/webhook-secrets.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'secretBox'>): void {
  app.post(
    '/v1/webhook-secrets',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['webhooks'],
        summary:
          'A new business-event webhook secret, shown once; the previous one is invalid at once',
        response: {
          201: Type.Object({
            secret: Type.String(),
            created_at: Type.String({ format: 'date-time' }),
          }),
          ...problemResponses(401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      reply.status(201);
      return rotateWebhookSecret(ctx.db, ctx.secretBox, callerOf(request), ctx.clock.now());
    },
  );
}

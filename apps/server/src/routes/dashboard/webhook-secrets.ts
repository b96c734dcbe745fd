import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { rotateWebhookSecret, webhookSecretStatus } from '../../domain/webhook-secrets.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';

export function registerStatus(app: App, ctx: Context): void {
  app.get(
    '/v1/webhook-secrets',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Whether a business-event webhook secret is configured (never the secret)',
        response: {
          200: Type.Object({
            configured: Type.Boolean(),
            created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          }),
          ...problemResponses(401, 403),
        },
      },
    },
    async (request) => webhookSecretStatus(ctx.db, callerOf(request).orgId),
  );
}

export function registerRotate(app: App, ctx: Context): void {
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
      return rotateWebhookSecret(ctx.db, ctx.secretBox, callerOf(request));
    },
  );
}

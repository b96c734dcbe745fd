import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { webhookSecretStatus } from '../../domain/webhook-secrets.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
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

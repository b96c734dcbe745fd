import type { Context } from '../../context.ts';
import { RotatedSecretSchema } from '../../domain/outbound-webhooks/endpoint-schema.ts';
import { rotateEndpointSecret } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { EndpointParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'secretBox'>): void {
  app.post(
    '/v1/webhook-endpoints/:id/rotate-secret',
    {
      schema: {
        tags: TAGS,
        summary: 'A new signing secret, answered once; the previous one also signs for 24 h',
        params: EndpointParams,
        response: { 200: RotatedSecretSchema, ...problemResponses(401, 403, 404, 409) },
      },
    },
    async (request) =>
      rotateEndpointSecret(
        ctx.db,
        ctx.secretBox,
        callerOf(request),
        request.params.id,
        ctx.clock.now(),
      ),
  );
}

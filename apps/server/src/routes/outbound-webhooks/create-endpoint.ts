import type { Context } from '../../context.ts';
import {
  CreatedEndpointSchema,
  EndpointInputSchema,
} from '../../domain/outbound-webhooks/endpoint-schema.ts';
import { createEndpoint } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { created } from '../../http/created.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { TAGS } from './params.ts';

export function register(
  app: App,
  ctx: Pick<Context, 'clock' | 'config' | 'db' | 'secretBox'>,
): void {
  app.post(
    '/v1/webhook-endpoints',
    {
      schema: {
        tags: TAGS,
        summary: 'Add a webhook endpoint; its signing secret is answered now and never again',
        description:
          'Admins and owners. At most 20 per org (a 409 `webhook-endpoint-limit`); a URL that is not https, or names a loopback, private, link-local or metadata address, is a 400 `webhook-url-refused` (unless the server sets ARBITER_WEBHOOKS_ALLOW_PRIVATE, for self-hosted and test set-ups).',
        body: EndpointInputSchema,
        response: { 201: CreatedEndpointSchema, ...problemResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const endpoint = await createEndpoint(
        ctx.db,
        ctx.secretBox,
        callerOf(request),
        request.body,
        ctx.clock.now(),
        ctx.config.webhooksAllowPrivate,
      );
      return created(reply, `/v1/webhook-endpoints/${endpoint.id}`, endpoint);
    },
  );
}

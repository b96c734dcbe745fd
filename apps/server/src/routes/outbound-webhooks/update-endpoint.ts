import type { Context } from '../../context.ts';
import {
  EndpointPatchSchema,
  EndpointSchema,
} from '../../domain/outbound-webhooks/endpoint-schema.ts';
import { updateEndpoint } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { EndpointParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db'>): void {
  app.patch(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        tags: TAGS,
        summary: "Change a webhook endpoint's URL, event types, description or enabled flag",
        params: EndpointParams,
        body: EndpointPatchSchema,
        response: { 200: EndpointSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      updateEndpoint(
        ctx.db,
        callerOf(request),
        request.params.id,
        request.body,
        ctx.clock.now(),
        ctx.config.webhooksAllowPrivate,
      ),
  );
}

import type { Context } from '../../context.ts';
import { EndpointSchema } from '../../domain/outbound-webhooks/endpoint-schema.ts';
import { getEndpoint } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { EndpointParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'One webhook endpoint (never its secret)',
        params: EndpointParams,
        response: { 200: EndpointSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => getEndpoint(ctx.db, callerOf(request).orgId, request.params.id),
  );
}

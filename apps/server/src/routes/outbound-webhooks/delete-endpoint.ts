import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { deleteEndpoint } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { EndpointParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.delete(
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a webhook endpoint and its queued deliveries',
        params: EndpointParams,
        response: { 204: Type.Null(), ...problemResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteEndpoint(ctx.db, callerOf(request), request.params.id);
      reply.status(204);
    },
  );
}

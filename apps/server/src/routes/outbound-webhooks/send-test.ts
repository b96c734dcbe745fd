import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { sendTestEvent } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { EndpointParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db'>): void {
  app.post(
    '/v1/webhook-endpoints/:id/test',
    {
      schema: {
        tags: TAGS,
        summary: 'Queue a `webhook_endpoint.test` event for this endpoint alone',
        description: 'Answered at once; the delivery worker sends it in the background.',
        params: EndpointParams,
        response: {
          202: Type.Object({ id: Type.String({ description: 'The event id (`webhook-id`)' }) }),
          ...problemResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      reply.status(202);
      return sendTestEvent(ctx.db, callerOf(request), request.params.id, ctx.clock.now());
    },
  );
}

import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { retryDelivery } from '../../domain/outbound-webhooks/deliveries.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { DeliverySchema } from './delivery-schema.ts';
import { TAGS } from './params.ts';

const DeliveryParams = Type.Object({
  id: Type.String({ description: 'The endpoint id' }),
  delivery_id: Type.String({ description: 'The delivery id' }),
});

export function register(app: App, ctx: Pick<Context, 'clock' | 'db'>): void {
  app.post(
    '/v1/webhook-endpoints/:id/deliveries/:delivery_id/retry',
    {
      schema: {
        tags: TAGS,
        summary: 'Send a delivery once more, now',
        description:
          'Whatever its state: the delivery is due at once with the same event id (`webhook-id`), so a receiver that already has it can tell. A delivery that had spent its retries gets one more attempt. Audited.',
        params: DeliveryParams,
        response: { 202: DeliverySchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      reply.status(202);
      const { id, delivery_id } = request.params;
      return retryDelivery(ctx.db, callerOf(request), id, delivery_id, ctx.clock.now());
    },
  );
}

import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { applyBillingEvent } from '../../domain/billing/apply-event.ts';
import type { App } from '../../http/app-types.ts';
import { billingSignatureHook } from '../../http/billing-signature-auth.ts';
import { problemResponses } from '../../http/responses.ts';

export function register(
  app: App,
  ctx: Pick<Context, 'billingWebhooks' | 'billing' | 'db' | 'planPrices' | 'clock' | 'orgState'>,
): void {
  app.decorateRequest('billingEvent', null);
  app.post(
    '/v1/webhooks/stripe',
    {
      schema: {
        tags: ['webhooks'],
        summary:
          'Stripe subscription lifecycle: checkout.session.completed and customer.subscription.created/updated/deleted',
        description:
          'Header `Billing-Signature` (or `Stripe-Signature`), verified with the stripe library against `ARBITER_STRIPE_WEBHOOK_SECRET`; 5-minute tolerance. Replays, retries and out-of-order deliveries leave the newest state. Other event types are acknowledged and ignored.',
        security: [{ billingSignature: [] }],
        body: Type.Object(
          { id: Type.String(), type: Type.String() },
          { additionalProperties: true, description: 'A Stripe event object' },
        ),
        response: { 204: Type.Null(), ...problemResponses(400, 401, 502) },
      },
      preValidation: billingSignatureHook(ctx),
    },
    async (request, reply) => {
      const result = await applyBillingEvent(
        ctx.db,
        ctx.billing,
        ctx.planPrices,
        request.billingEvent!,
        ctx.clock.now(),
      );
      request.log.info({ billingEvent: request.billingEvent?.id, result }, 'billing webhook');
      if (result === 'applied') ctx.orgState.clear();
      reply.status(204);
    },
  );
}

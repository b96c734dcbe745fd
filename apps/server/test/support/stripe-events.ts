import Stripe from 'stripe';
import type { Harness } from './harness.ts';

export const WEBHOOK_SECRET = 'whsec_test_arbiter_billing';
export const PRICE_PRO = 'price_arbiter_pro';
export const PRICE_BUSINESS = 'price_arbiter_business';

/** The settings of a deployment whose billing is configured against `origin`. */
export function billingSettings(origin: string): Record<string, string> {
  return {
    ARBITER_STRIPE_SECRET_KEY: 'sk_test_arbiter',
    ARBITER_STRIPE_API_BASE: origin,
    ARBITER_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ARBITER_STRIPE_PRICE_PRO: PRICE_PRO,
    ARBITER_STRIPE_PRICE_BUSINESS: PRICE_BUSINESS,
  };
}

export interface SubscriptionFields {
  id: string;
  customer: string;
  price: string;
  status: string;
  periodEnd: Date;
  cancelAtPeriodEnd?: boolean;
  /** `metadata.arbiter_org_id`; left out when undefined. */
  orgId?: string;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** A Stripe subscription object as its webhooks carry it (period end on the item, API 2025+). */
export function subscriptionObject(f: SubscriptionFields) {
  return {
    id: f.id,
    object: 'subscription',
    customer: f.customer,
    status: f.status,
    cancel_at_period_end: f.cancelAtPeriodEnd ?? false,
    metadata: f.orgId === undefined ? {} : { arbiter_org_id: f.orgId },
    items: {
      object: 'list',
      data: [
        {
          id: `si_${f.id}`,
          object: 'subscription_item',
          price: { id: f.price, object: 'price' },
          current_period_end: seconds(f.periodEnd),
        },
      ],
    },
  };
}

let counter = 0;

/** A Stripe event envelope; `created` orders deliveries of one subscription. */
export function stripeEvent(type: string, object: unknown, created: Date, id?: string) {
  counter += 1;
  return {
    id: id ?? `evt_test_${counter}_${Math.random().toString(36).slice(2, 8)}`,
    object: 'event',
    api_version: '2025-09-30.clover',
    created: seconds(created),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  };
}

const signer = new Stripe('sk_test_signer');

/** The signature header Stripe would send, made by the stripe library's own test helper. */
export function signature(payload: string, at: Date, secret = WEBHOOK_SECRET): string {
  return signer.webhooks.generateTestHeaderString({ payload, secret, timestamp: seconds(at) });
}

export interface DeliveryOptions {
  /** When the signature was made; default: the server's clock now. */
  at?: Date;
  header?: 'billing-signature' | 'stripe-signature';
  secret?: string;
  /** A header value to send instead of a real signature. */
  sign?: string;
}

/** POSTs a Stripe event to the billing webhook, signed as Stripe would sign it. */
export function deliverBillingEvent(h: Harness, event: object, options: DeliveryOptions = {}) {
  const payload = JSON.stringify(event);
  const sig = options.sign ?? signature(payload, options.at ?? h.ctx.clock.now(), options.secret);
  return h.app.inject({
    method: 'POST',
    url: '/v1/webhooks/stripe',
    headers: {
      // As Stripe sends it.
      'content-type': 'application/json; charset=utf-8',
      [options.header ?? 'billing-signature']: sig,
    },
    payload,
  });
}

import type Stripe from 'stripe';
import type { BillingEvent, BillingSubscription } from '../../kernel/ports.ts';

export const ORG_METADATA_KEY = 'arbiter_org_id';

const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
]);

function idOf(ref: string | { id: string } | null | undefined): string | null {
  if (ref === null || ref === undefined) return null;
  return typeof ref === 'string' ? ref : ref.id;
}

function instant(unixSeconds: number | null | undefined): Date | null {
  return typeof unixSeconds === 'number' ? new Date(unixSeconds * 1000) : null;
}

/**
 * The subscription in the service's terms. The period end moved from the subscription to
 * its items in Stripe's 2025 API versions; both places are read.
 */
export function subscriptionOf(sub: Stripe.Subscription): BillingSubscription {
  const item = sub.items?.data?.[0] as
    | (Stripe.SubscriptionItem & { current_period_end?: number })
    | undefined;
  const legacy = (sub as unknown as { current_period_end?: number }).current_period_end;
  return {
    id: sub.id,
    customerId: idOf(sub.customer),
    status: sub.status,
    priceId: item?.price?.id ?? null,
    currentPeriodEnd: instant(legacy ?? item?.current_period_end),
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
    orgId: sub.metadata?.[ORG_METADATA_KEY] ?? null,
  };
}

/** A verified Stripe event reduced to what the service acts on; other types are ignored. */
export function billingEventOf(event: Stripe.Event): BillingEvent {
  const base = { id: event.id, created: new Date(event.created * 1000) };
  if (SUBSCRIPTION_EVENTS.has(event.type)) {
    return {
      ...base,
      kind: 'subscription',
      deleted: event.type === 'customer.subscription.deleted',
      subscription: subscriptionOf(event.data.object as Stripe.Subscription),
    };
  }
  if (event.type === 'checkout.session.completed') {
    const session = event.data.object as Stripe.Checkout.Session;
    return {
      ...base,
      kind: 'checkout-completed',
      customerId: idOf(session.customer),
      subscriptionId: idOf(session.subscription),
      orgId: session.metadata?.[ORG_METADATA_KEY] ?? session.client_reference_id ?? null,
    };
  }
  return { ...base, kind: 'ignored', providerType: event.type };
}

import { lte, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { billingSubscriptions, billingWebhookEvents } from '../../db/schema.ts';
import type { BillingEvent, BillingProvider, BillingSubscription } from '../../kernel/ports.ts';
import { syncOrgPlan } from '../plans/plan-changes.ts';
import { linkCustomer } from './billing-account.ts';
import { orgOfBillingEvent } from './billing-org.ts';
import { type PlanPrices, planOfPrice } from './plan-prices.ts';

/** What a delivery did; every one of them is acknowledged (204) so the provider stops retrying. */
export type BillingEventResult = 'applied' | 'replayed' | 'stale' | 'ignored' | 'unknown-org';

interface SubscriptionChange {
  eventId: string;
  created: Date;
  deleted: boolean;
  subscription: BillingSubscription;
}

/** Claims the event id; false when it was applied before (a replay or a retry). */
async function claimEvent(tx: Transaction, eventId: string, type: string): Promise<boolean> {
  const claimed = await tx
    .insert(billingWebhookEvents)
    .values({ eventId, type })
    .onConflictDoNothing()
    .returning({ eventId: billingWebhookEvents.eventId });
  return claimed.length > 0;
}

/** Upserts the subscription unless a newer event was already applied to it; false when stale. */
async function upsertSubscription(
  tx: Transaction,
  orgId: string,
  change: SubscriptionChange,
  prices: PlanPrices,
): Promise<boolean> {
  const sub = change.subscription;
  const state = {
    orgId,
    customerId: sub.customerId,
    plan: planOfPrice(prices, sub.priceId),
    priceId: sub.priceId,
    status: change.deleted ? 'canceled' : sub.status,
    currentPeriodEnd: sub.currentPeriodEnd,
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    lastEventCreated: change.created,
    lastEventId: change.eventId,
    updatedAt: sql`now()`,
  };
  const written = await tx
    .insert(billingSubscriptions)
    .values({ subscriptionId: sub.id, ...state })
    .onConflictDoUpdate({
      target: billingSubscriptions.subscriptionId,
      set: state,
      // An event created before the last applied one is out of order: the newer state stays.
      setWhere: lte(billingSubscriptions.lastEventCreated, change.created),
    })
    .returning({ id: billingSubscriptions.subscriptionId });
  return written.length > 0;
}

async function applySubscription(
  db: Database,
  prices: PlanPrices,
  change: SubscriptionChange,
  orgHint: string | null,
  now: Date,
): Promise<BillingEventResult> {
  const sub = change.subscription;
  const orgId = await orgOfBillingEvent(db, {
    orgId: sub.orgId ?? orgHint,
    customerId: sub.customerId,
    subscriptionId: sub.id,
  });
  if (orgId === null) return 'unknown-org';
  return db.transaction(async (tx) => {
    if (!(await claimEvent(tx, change.eventId, 'subscription'))) return 'replayed';
    if (sub.customerId !== null) await linkCustomer(tx, orgId, sub.customerId);
    if (!(await upsertSubscription(tx, orgId, change, prices))) return 'stale';
    await syncOrgPlan(tx, orgId, now, 'billing');
    return 'applied';
  });
}

async function applyCheckout(
  db: Database,
  billing: BillingProvider | null,
  prices: PlanPrices,
  event: Extract<BillingEvent, { kind: 'checkout-completed' }>,
  now: Date,
): Promise<BillingEventResult> {
  const orgId = await orgOfBillingEvent(db, {
    orgId: event.orgId,
    customerId: event.customerId,
    subscriptionId: event.subscriptionId,
  });
  if (orgId === null) return 'unknown-org';
  if (event.customerId !== null) await linkCustomer(db, orgId, event.customerId);
  // The session names the subscription only; its state (price, status, period) is asked for.
  if (event.subscriptionId !== null && billing !== null) {
    const subscription = await billing.retrieveSubscription(event.subscriptionId);
    const change = { eventId: event.id, created: event.created, deleted: false, subscription };
    return applySubscription(db, prices, change, orgId, now);
  }
  const fresh = await db.transaction((tx) => claimEvent(tx, event.id, 'checkout'));
  return fresh ? 'applied' : 'replayed';
}

/** Applies one verified billing webhook: idempotent per event id, ordered per subscription. */
export async function applyBillingEvent(
  db: Database,
  billing: BillingProvider | null,
  prices: PlanPrices,
  event: BillingEvent,
  now: Date,
): Promise<BillingEventResult> {
  if (event.kind === 'ignored') return 'ignored';
  if (event.kind === 'checkout-completed') return applyCheckout(db, billing, prices, event, now);
  const change = {
    eventId: event.id,
    created: event.created,
    deleted: event.deleted,
    subscription: event.subscription,
  };
  return applySubscription(db, prices, change, null, now);
}

import { eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { billingSubscriptions, planOverrides } from '../../db/schema.ts';
import { type Plan, planOf, planRank } from './plans.ts';

/** Where an org's plan comes from, in order of precedence. */
export type PlanSource = 'override' | 'billing' | 'free';

export interface SubscriptionState {
  subscriptionId: string;
  /** null when the subscription's price is none of the configured plans' prices. */
  plan: Plan | null;
  status: string;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  lastEventCreated: Date;
}

export interface EffectivePlan {
  plan: Plan;
  source: PlanSource;
  /** The plan a platform owner pinned, if any. */
  override: Plan | null;
  /** The subscription that grants the plan, else the org's most recently changed one. */
  subscription: SubscriptionState | null;
}

const PAYING = new Set(['active', 'trialing']);
// Never paid: no period to honour.
const NEVER_PAID = new Set(['incomplete', 'incomplete_expired']);

/**
 * Whether a subscription grants its plan at `now`. A downgrade waits for the end of the paid
 * period: a subscription cancelled at period end, deleted, or fallen out of `active`/`trialing`
 * keeps its plan until `current_period_end`.
 */
export function subscriptionGrants(sub: SubscriptionState, now: Date): boolean {
  if (sub.plan === null || NEVER_PAID.has(sub.status)) return false;
  const periodOver = sub.currentPeriodEnd !== null && sub.currentPeriodEnd <= now;
  if (PAYING.has(sub.status)) return !(sub.cancelAtPeriodEnd && periodOver);
  return sub.currentPeriodEnd !== null && !periodOver;
}

/** Platform override, else the best plan a subscription grants, else free. */
export function resolvePlan(
  override: Plan | null,
  subscriptions: SubscriptionState[],
  now: Date,
): EffectivePlan {
  const granting = subscriptions
    .filter((s) => subscriptionGrants(s, now))
    .sort((a, b) => planRank(b.plan as Plan) - planRank(a.plan as Plan));
  const latest = [...subscriptions].sort(
    (a, b) => b.lastEventCreated.getTime() - a.lastEventCreated.getTime(),
  );
  const subscription = granting[0] ?? latest[0] ?? null;
  if (override !== null) return { plan: override, source: 'override', override, subscription };
  if (granting[0]?.plan) {
    return { plan: granting[0].plan, source: 'billing', override, subscription };
  }
  return { plan: 'free', source: 'free', override, subscription };
}

/** The plan whose limits apply to the org at `now`. */
export async function effectivePlan(
  db: Pick<Database, 'select'>,
  orgId: string,
  now: Date,
): Promise<EffectivePlan> {
  const [pinned] = await db
    .select({ plan: planOverrides.plan })
    .from(planOverrides)
    .where(eq(planOverrides.orgId, orgId));
  const subscriptions = await db
    .select()
    .from(billingSubscriptions)
    .where(eq(billingSubscriptions.orgId, orgId));
  return resolvePlan(
    pinned ? planOf(pinned.plan) : null,
    subscriptions.map((s) => ({
      subscriptionId: s.subscriptionId,
      plan: s.plan === null ? null : planOf(s.plan),
      status: s.status,
      currentPeriodEnd: s.currentPeriodEnd,
      cancelAtPeriodEnd: s.cancelAtPeriodEnd,
      lastEventCreated: s.lastEventCreated,
    })),
    now,
  );
}

import type { Database } from '../../db/connect.ts';
import { effectivePlan } from '../plans/effective-plan.ts';
import { customerOf } from './billing-account.ts';

/** BillingSummary (docs/decisions/identity-and-billing.md#effective-plan): the plan, where it comes from, and the subscription behind it. */
export async function billingSummary(
  db: Database,
  orgId: string,
  now: Date,
  billingConfigured: boolean,
) {
  const effective = await effectivePlan(db, orgId, now);
  const sub = effective.subscription;
  return {
    plan: effective.plan,
    plan_source: effective.source,
    override: effective.override,
    has_billing_account: (await customerOf(db, orgId)) !== null,
    billing_configured: billingConfigured,
    subscription_status: sub?.status ?? null,
    current_period_end: sub?.currentPeriodEnd?.toISOString() ?? null,
    cancel_at_period_end: sub?.cancelAtPeriodEnd ?? false,
  };
}

import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { usageCounters } from '../../db/schema.ts';
import type { EventShards } from '../../db/shards/every-shard.ts';
import { unpricedCalls } from '../model-prices/unpriced.ts';
import { effectivePlan } from '../plans/effective-plan.ts';
import { PLAN_LIMITS } from '../plans/plans.ts';
import { monthResetsAt, usageMonth } from './usage-month.ts';

/** This UTC month's metered usage against the plan's allowances. */
export async function usageSummary(db: Database, orgId: string, now: Date, enforced: boolean) {
  const month = usageMonth(now);
  const { plan } = await effectivePlan(db, orgId, now);
  const [counter] = await db
    .select({
      events: sql<number>`coalesce(sum(${usageCounters.events}), 0)`,
      judgeEvaluations: sql<number>`coalesce(sum(${usageCounters.judgeEvaluations}), 0)`,
    })
    .from(usageCounters)
    .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, month)));
  const limits = PLAN_LIMITS[plan];
  return {
    plan: limits.plan,
    month,
    events: { used: counter?.events ?? 0, included: limits.monthly_event_allowance },
    judge_evaluations: {
      used: counter?.judgeEvaluations ?? 0,
      included: limits.monthly_judge_allowance,
    },
    overage_billed: limits.bills_overage,
    resets_at: monthResetsAt(now).toISOString(),
    enforced,
  };
}

/**
 * The org's own usage view: the summary, and the month's model calls no price row priced (by
 * their timestamps), per model, so a team sees which prices to add.
 */
export async function usageOfOrg(
  db: Database,
  shards: EventShards,
  orgId: string,
  now: Date,
  enforced: boolean,
) {
  const summary = await usageSummary(db, orgId, now, enforced);
  const monthStart = new Date(`${summary.month}-01T00:00:00Z`);
  const unpriced = await unpricedCalls(shards, orgId, monthStart, monthResetsAt(now));
  return { ...summary, unpriced_calls: unpriced };
}

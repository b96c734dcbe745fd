import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { usageCounters } from '../../db/schema.ts';
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

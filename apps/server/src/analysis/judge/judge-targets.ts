import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { experiments, experimentVersions } from '../../db/schema.ts';
import { loadCurrentVersion } from '../../domain/experiments/current-version.ts';
import { effectivePlan } from '../../domain/plans/effective-plan.ts';
import { PLAN_LIMITS, type Plan } from '../../domain/plans/plans.ts';
import { UUID } from '../../schemas/uuid.ts';

export interface JudgeMetric {
  name: string;
  rubric: string;
}

export interface JudgeTarget {
  experimentId: string;
  orgId: string;
  plan: Plan;
  allowance: number;
  metrics: JudgeMetric[];
}

/**
 * Experiments whose current version has judge metrics, in orgs whose plan includes judge
 * evaluations. Older versions do not count: a metric removed from the config stops costing.
 */
export async function judgeTargets(
  db: Database,
  now: Date,
  experimentId?: string,
): Promise<JudgeTarget[]> {
  if (experimentId !== undefined && !UUID.test(experimentId)) return [];
  const found = await loadCurrentVersion(
    db,
    and(
      sql`${experimentVersions.config}->'metrics' @> '[{"kind":"judge"}]'::jsonb`,
      experimentId === undefined ? undefined : eq(experiments.id, experimentId),
    ),
  ).orderBy(experiments.id);
  const targets: JudgeTarget[] = [];
  for (const { row, version } of found) {
    const { plan } = await effectivePlan(db, row.orgId, now);
    const allowance = PLAN_LIMITS[plan].monthly_judge_allowance;
    if (allowance <= 0) continue;
    const metrics = version.config.metrics.flatMap((m) =>
      m.kind === 'judge' && m.rubric !== undefined ? [{ name: m.name, rubric: m.rubric }] : [],
    );
    if (metrics.length > 0)
      targets.push({ experimentId: row.id, orgId: row.orgId, plan, allowance, metrics });
  }
  return targets;
}

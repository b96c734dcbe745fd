import { and, between, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { userDayBusiness, userDayStats } from '../db/schema.ts';
import type { MetricDefinition } from '../schemas/experiment-config.ts';

/** Per variant, each user's one value over the window (the user is the unit of analysis). */
export type ArmValues = Map<string, number[]>;

export interface WindowDays {
  /** Inclusive UTC dates, YYYY-MM-DD. */
  from: string;
  to: string;
}

export interface UserStats {
  variant: string;
  userId: string;
  exposures: number;
  calls: number;
  errors: number;
  latencyN: number;
  latencySum: number;
  tokensN: number;
  tokensSum: number;
  costSum: number;
}

/** Sums each user's daily stats over the window: one row per (variant, user). */
export async function readUserStats(
  db: Database,
  experimentId: string,
  window: WindowDays,
): Promise<UserStats[]> {
  const rows = await db
    .select({
      variant: userDayStats.variant,
      userId: userDayStats.userId,
      exposures: sql<number>`sum(${userDayStats.exposures})`,
      calls: sql<number>`sum(${userDayStats.calls})`,
      errors: sql<number>`sum(${userDayStats.errors})`,
      latencyN: sql<number>`sum(${userDayStats.latencyN})`,
      latencySum: sql<number>`sum(${userDayStats.latencySum})`,
      tokensN: sql<number>`sum(${userDayStats.tokensN})`,
      tokensSum: sql<number>`sum(${userDayStats.tokensSum})`,
      costSum: sql<number>`sum(${userDayStats.costSum})`,
    })
    .from(userDayStats)
    .where(
      and(
        eq(userDayStats.experimentId, experimentId),
        between(userDayStats.day, window.from, window.to),
      ),
    )
    .groupBy(userDayStats.variant, userDayStats.userId)
    .orderBy(userDayStats.variant, userDayStats.userId);
  // pg returns sums of bigint as strings, PGlite as numbers
  return rows.map((r) => ({
    variant: r.variant,
    userId: r.userId,
    exposures: Number(r.exposures),
    calls: Number(r.calls),
    errors: Number(r.errors),
    latencyN: Number(r.latencyN),
    latencySum: Number(r.latencySum),
    tokensN: Number(r.tokensN),
    tokensSum: Number(r.tokensSum),
    costSum: Number(r.costSum),
  }));
}

async function readBusiness(
  db: Database,
  experimentId: string,
  metric: string,
  window: WindowDays,
) {
  const rows = await db
    .select({
      variant: userDayBusiness.variant,
      userId: userDayBusiness.userId,
      n: sql<number>`sum(${userDayBusiness.n})`,
      sum: sql<number>`sum(${userDayBusiness.sum})`,
    })
    .from(userDayBusiness)
    .where(
      and(
        eq(userDayBusiness.experimentId, experimentId),
        eq(userDayBusiness.metric, metric),
        between(userDayBusiness.day, window.from, window.to),
      ),
    )
    .groupBy(userDayBusiness.variant, userDayBusiness.userId);
  const byUser = new Map<string, { n: number; sum: number }>();
  for (const r of rows)
    byUser.set(`${r.variant}\u0000${r.userId}`, { n: Number(r.n), sum: Number(r.sum) });
  return byUser;
}

function push(arms: ArmValues, variant: string, value: number): void {
  const list = arms.get(variant);
  if (list) list.push(value);
  else arms.set(variant, [value]);
}

/**
 * Each user's value of one metric (DESIGN §7): the mean of the user's calls for latency and
 * tokens, the sum for cost and revenue, the share of failed calls for error_rate, 0/1 for
 * conversion and retention, the mean of values for `value`. Per-call metrics count users who
 * made calls; outcome metrics count every exposed user (0 when they had no such event) plus
 * any user with the outcome.
 */
export async function metricValues(
  db: Database,
  experimentId: string,
  metric: MetricDefinition,
  window: WindowDays,
  stats: readonly UserStats[],
): Promise<ArmValues> {
  const arms: ArmValues = new Map();
  switch (metric.kind) {
    case 'latency':
      for (const u of stats) if (u.latencyN > 0) push(arms, u.variant, u.latencySum / u.latencyN);
      return arms;
    case 'tokens':
      for (const u of stats) if (u.tokensN > 0) push(arms, u.variant, u.tokensSum / u.tokensN);
      return arms;
    case 'cost':
      for (const u of stats) if (u.exposures > 0 || u.calls > 0) push(arms, u.variant, u.costSum);
      return arms;
    case 'error_rate':
      for (const u of stats) if (u.calls > 0) push(arms, u.variant, u.errors / u.calls);
      return arms;
    case 'judge':
      throw new Error('judge values come from judge scores');
  }
  const outcomes = await readBusiness(db, experimentId, metric.name, window);
  const seen = new Set<string>();
  const userValue = (o: { n: number; sum: number } | undefined): number | null => {
    switch (metric.kind) {
      case 'conversion':
      case 'retention':
        return o && o.n > 0 ? 1 : 0;
      case 'revenue':
        return o?.sum ?? 0;
      default:
        return o && o.n > 0 ? o.sum / o.n : null;
    }
  };
  for (const u of stats) {
    if (u.exposures === 0) continue;
    const key = `${u.variant}\u0000${u.userId}`;
    seen.add(key);
    const v = userValue(outcomes.get(key));
    if (v !== null) push(arms, u.variant, v);
  }
  for (const [key, o] of outcomes) {
    if (seen.has(key)) continue;
    const v = userValue(o);
    if (v !== null) push(arms, key.slice(0, key.indexOf('\u0000')), v);
  }
  return arms;
}

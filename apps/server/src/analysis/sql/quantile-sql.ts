import {
  EMPTY_COVARIATE_SUMMARY,
  type QuantileArm,
  quantileLevel,
  quantileRanks,
} from '@arbiter/stats';
import { type SQL, sql } from 'drizzle-orm';
import { callValueOrNull, isQuantileKind, type QuantileKind } from '../../db/call-values.ts';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { dailyRows, windowEndInstant } from './window-relations.ts';

/** A quantile metric's arms as a run reads them, with the level in ten-thousandths. */
export interface QuantileArms {
  level: number;
  arms: Record<string, QuantileArm>;
}

/** An arm without calls: the test answers `empty_arm` before reading anything else. */
export const EMPTY_QUANTILE_ARM: QuantileArm = Object.freeze({
  calls: 0,
  estimate: Number.NaN,
  lower: Number.NaN,
  upper: Number.NaN,
  clusters: EMPTY_COVARIATE_SUMMARY,
});

/**
 * A quantile metric's arms (docs/decisions/analysis.md#quantile-and-ratio-metrics), in two statements
 * over one snapshot: the calls per arm, then, at the ranks `quantileRanks` computes exactly
 * from those counts, the order statistics and the per-user counts of calls at or below the
 * estimate over every user of the arm (exposed or calling; without a call: zeros). Values are
 * counted and ranked in the database; Node gets a row per arm.
 */
export async function readQuantileArms(
  db: Database,
  scope: ValueScope,
  metric: MetricDefinition,
  source: QuantileSource = runSource(scope),
): Promise<QuantileArms> {
  const { level, kind } = quantileOf(metric);
  const calls = source.calls(callValueOrNull(kind));
  return inAnalysisTransaction(
    db,
    async (tx) => {
      const counts = await rows<{ variant: string; n: unknown }>(
        tx,
        sql`select variant, count(*) as n from (${calls}) c group by variant`,
      );
      const want = wantRows(counts, level);
      if (want.length === 0) return { level, arms: {} };
      const found = await rows<ArmRow>(tx, armsStatement(calls, source.members, want));
      return { level, arms: Object.fromEntries(found.map((r) => [r.variant, armOf(r)])) };
    },
    { snapshot: true },
  );
}

/** A quantile metric's level in ten-thousandths and its per-call kind, or an error. */
export function quantileOf(metric: MetricDefinition): { level: number; kind: QuantileKind } {
  const level = quantileLevel(metric.quantile ?? Number.NaN);
  if (level === null || !isQuantileKind(metric.kind))
    throw new Error(`metric ${metric.name} is not a valid quantile metric`);
  return { level, kind: metric.kind };
}

/**
 * Where a quantile's calls and users come from: `calls(value)` the rows (variant, user_id, v),
 * `members` rows (variant, user_id, m) with m ≥ 0, a user being a member of the arm when their
 * m add up to more than 0 (so the source need not group them first). A breakdown keys both by
 * slice and arm (`slice-sql.ts`).
 */
export interface QuantileSource {
  calls: (value: SQL) => SQL;
  members: SQL;
}

/** The run's own source: every call of the window, and the users exposed or calling. */
export function runSource(scope: ValueScope): QuantileSource {
  const { from, to } = scope.window;
  return {
    calls: (value) => windowCalls(scope, value),
    // exposed or calling: the counts are never negative, so their sum is > 0 exactly then
    members: sql`select variant, user_id, exposures + calls as m from ${dailyRows(scope, 'user_day_stats')}
      where experiment_id = ${scope.experimentId}::uuid and day between ${from}::date and ${to}::date`,
  };
}

/** The experiment's model calls with a value in the window, as the fold stored them. */
function windowCalls(scope: ValueScope, value: SQL): SQL {
  const { from } = scope.window;
  return sql`select e.variant, e.user_id, (${value})::float8 as v from events e
    where e.experiment_id = ${scope.experimentId}::uuid and e.type = 'model_call'
      and e.variant is not null and (${value}) is not null
      and e.occurred_at >= (${from}::date)::timestamp at time zone 'UTC'
      and e.occurred_at < ${windowEndInstant(scope)}
      and not exists (select 1 from ingest_quarantine q
        where q.org_id = e.org_id and q.event_id = e.event_id)`;
}

export interface ArmRow {
  variant: string;
  calls: unknown;
  est: unknown;
  lo: unknown;
  hi: unknown;
  users: unknown;
  sum_a: unknown;
  sum_aa: unknown;
  sum_b: unknown;
  sum_bb: unknown;
  sum_ab: unknown;
}

/**
 * The order statistics from each arm's distinct values and their running counts (x(k) is the
 * least value whose running count reaches k: a hash aggregate and a sort of distinct values,
 * not a sort of every call), then one aggregate per (arm, user) over the members' rows and the
 * calls together, which gives each member's counts without a join (a member without calls
 * sums to zeros; a caller who is not a member is left out).
 */
function armsStatement(calls: SQL, members: SQL, want: ReturnType<typeof wantRows>): SQL {
  return sql`with calls as materialized (${calls}),
    ${wantCte(want)},
    ${orderStatistics(sql`select variant, v, count(*) as n from calls group by variant, v`)},
    ${clusterCtes(members)}
    select p.*, c.users, c.sum_a, c.sum_aa, c.sum_b, c.sum_bb, c.sum_ab
    from picks p left join clusters c on c.variant = p.variant`;
}

/**
 * `per_user` and `clusters` over the CTEs `calls` (variant, user_id, v) and `picks` (variant,
 * est): per arm, over its members, the sums of a (calls at or below the estimate), b (calls)
 * and their squares and product.
 */
export function clusterCtes(members: SQL): SQL {
  return sql`per_user as (
      select variant, sum(a) as a, sum(b) as b from (
        select m.variant, m.user_id, 0 as a, 0 as b, m.m from (${members}) m
        union all
        select c.variant, c.user_id, (c.v <= p.est)::int, 1, 0
        from calls c join picks p on p.variant = c.variant
      ) x group by variant, user_id having sum(m) > 0
    ),
    clusters as (
      select variant, count(*) as users, sum(a) as sum_a, sum(a * a) as sum_aa, sum(b) as sum_b,
        sum(b * b) as sum_bb, sum(a * b) as sum_ab
      from per_user group by variant
    )`;
}

/**
 * `running` and `picks` over `distinct` rows (variant, v, n): each arm's distinct values with
 * their counts, and `want`'s ranks. x(k) is the least value whose running count reaches k.
 */
export function orderStatistics(distinct: SQL): SQL {
  return sql`running as (
      select variant, v, sum(n) over (partition by variant order by v) as upto
      from (${distinct}) d
    ),
    picks as (
      select w.variant, max(r.upto) as calls,
        min(r.v) filter (where r.upto >= w.estimate) as est,
        min(r.v) filter (where r.upto >= w.lower) as lo,
        min(r.v) filter (where r.upto >= w.upper) as hi
      from running r join want w on w.variant = r.variant group by w.variant
    )`;
}

/** The ranks `quantileRanks` computes per arm, as the `want` rows a statement joins. */
export function wantRows(
  counts: readonly { variant: string; n: unknown }[],
  level: number,
): { variant: string; estimate: number; lower: number; upper: number }[] {
  return counts.map((c) => ({ variant: c.variant, ...quantileRanks(toNumber(c.n), level) }));
}

export function wantCte(want: ReturnType<typeof wantRows>): SQL {
  return sql`want as (select * from json_to_recordset(${JSON.stringify(want)}::json)
      as w(variant text, estimate bigint, lower bigint, upper bigint))`;
}

/** Counts are integers: raw sums (shift 0) are exact far past any arm's size. */
export function armOf(r: ArmRow): QuantileArm {
  const n = toNumber(r.users ?? 0);
  return {
    calls: toNumber(r.calls),
    estimate: toNumber(r.est),
    lower: toNumber(r.lo),
    upper: toNumber(r.hi),
    clusters: {
      n,
      nWithCovariate: n,
      sumY: toNumber(r.sum_a ?? 0),
      sumYY: toNumber(r.sum_aa ?? 0),
      sumX: toNumber(r.sum_b ?? 0),
      sumXX: toNumber(r.sum_bb ?? 0),
      sumXY: toNumber(r.sum_ab ?? 0),
      shiftX: 0,
      shiftY: 0,
    },
  };
}

import { type SQL, sql } from 'drizzle-orm';
import {
  CALL_VALUE,
  CALL_VALUE_COUNT_COLUMN,
  HAS_CALL_VALUE,
  type QuantileKind,
} from '../../db/call-values.ts';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import {
  type ArmRow,
  armOf,
  orderStatistics,
  type QuantileArms,
  quantileOf,
  wantCte,
  wantRows,
} from './quantile-sql.ts';
import { dailyRows, windowEndInstant } from './window-relations.ts';

/**
 * A run's quantile arms from what the fold keeps, equal to `readQuantileArms` over the raw
 * calls (docs/decisions/analysis.md#quantile-and-ratio-metrics) but without reading every call:
 * - the calls per arm and the order statistics from `call_value_counts` (one row per distinct
 *   value and day);
 * - each member's count of calls with a value, b, from `user_day_stats` (`latency_n`,
 *   `tokens_n`, `cost_n`), read per user as the sufficient statistics are;
 * - each member's count of calls above the estimate, c, from the raw calls above it only
 *   (about 1 − q of them, by the `events_call_*` indexes), so a = b − c is the count at or
 *   below it.
 * Needs the window's raw calls above the estimate: a window that reaches before the retention
 * purge reads `readQuantileArms` instead (the run is `retention_truncated` then). Calls still
 * queued for the fold are left out of the raw read as they are out of the aggregates.
 */
export async function readFoldedQuantileArms(
  db: Database,
  scope: ValueScope,
  metric: MetricDefinition,
): Promise<QuantileArms> {
  const { level, kind } = quantileOf(metric);
  const counted = foldedValueCounts(scope, kind);
  return inAnalysisTransaction(
    db,
    async (tx) => {
      const counts = await rows<{ variant: string; n: unknown }>(
        tx,
        sql`select variant, sum(n) as n from (${counted}) c group by variant`,
      );
      if (counts.length === 0) return { level, arms: {} };
      const picks = await rows<Omit<ArmRow, 'users' | `sum_${string}`>>(
        tx,
        sql`with ${wantCte(wantRows(counts, level))},
          ${orderStatistics(sql`select variant, v, sum(n) as n from (${counted}) c group by variant, v`)}
          select * from picks`,
      );
      const clusters = await rows<ArmRow>(tx, clustersStatement(scope, kind, picks));
      const byArm = new Map(clusters.map((c) => [c.variant, c]));
      return {
        level,
        arms: Object.fromEntries(
          picks.map((p) => [p.variant, armOf({ ...emptyClusters, ...byArm.get(p.variant), ...p })]),
        ),
      };
    },
    { snapshot: true },
  );
}

/** The fold's (variant, v, n) rows of the kind over the window: one per distinct value and day. */
export function foldedValueCounts(scope: ValueScope, kind: QuantileKind): SQL {
  const { experimentId, window } = scope;
  return sql`select variant, value as v, n from ${dailyRows(scope, 'call_value_counts')}
    where experiment_id = ${experimentId}::uuid and kind = ${kind}
      and day between ${window.from}::date and ${window.to}::date`;
}

const emptyClusters = { users: 0, sum_a: 0, sum_aa: 0, sum_b: 0, sum_bb: 0, sum_ab: 0 };

/**
 * Per arm, over its members (exposed or calling in the window; without a call: zeros), the
 * sums of a, a², b, b² and a·b, where b counts a member's calls with a value and a those at or
 * below the arm's estimate.
 */
export function clustersStatement(
  scope: ValueScope,
  kind: keyof typeof CALL_VALUE,
  picks: readonly { variant: string; est: unknown }[],
): SQL {
  const { experimentId, window } = scope;
  // One index range per arm: the estimate is a literal, so each scan starts at it.
  const above = sql.join(
    picks.map(
      (p) => sql`select e.variant, e.user_id from events e
        where e.experiment_id = ${experimentId}::uuid and e.type = 'model_call'
          and ${HAS_CALL_VALUE[kind]} and ${CALL_VALUE[kind]} > ${toNumber(p.est)}::float8
          and e.variant = ${p.variant}
          and e.occurred_at >= (${window.from}::date)::timestamp at time zone 'UTC'
          and e.occurred_at < ${windowEndInstant(scope)}
          and not exists (select 1 from ingest_quarantine q
            where q.org_id = e.org_id and q.event_id = e.event_id)
          and not exists (select 1 from ingest_pending p where p.txid = e.txid)`,
    ),
    sql` union all `,
  );
  return sql`with above as (
      select variant, user_id, count(*) as c from (${above}) x group by variant, user_id
    ),
    members as (${members(scope, CALL_VALUE_COUNT_COLUMN[kind])}),
    per_user as (
      select m.variant, m.b - coalesce(a.c, 0) as a, m.b
      from members m left join above a on a.variant = m.variant and a.user_id = m.user_id
    )
    select variant, count(*) as users, sum(a) as sum_a, sum(a * a) as sum_aa, sum(b) as sum_b,
      sum(b * b) as sum_bb, sum(a * b) as sum_ab
    from per_user group by variant`;
}

/**
 * (variant, user_id, b) per member. A one-day window has one user_day_stats row per member (its
 * key is experiment, day, arm, user), so it needs no grouping: on 100,000 users the grouping
 * was two thirds of the statement.
 */
function members(scope: ValueScope, counted: SQL): SQL {
  const { experimentId, window } = scope;
  if (window.from === window.to)
    return sql`select variant, user_id, ${counted}::int8 as b from ${dailyRows(scope, 'user_day_stats')}
      where experiment_id = ${experimentId}::uuid and day = ${window.from}::date
        and exposures + calls > 0`;
  return sql`select variant, user_id, sum(${counted})::int8 as b from ${dailyRows(scope, 'user_day_stats')}
    where experiment_id = ${experimentId}::uuid
      and day between ${window.from}::date and ${window.to}::date
    group by variant, user_id having sum(exposures + calls) > 0`;
}

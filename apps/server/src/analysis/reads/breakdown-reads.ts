import { MAX_SLICE_VALUES } from '@arbiter/contract';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { scatter } from '../shards/scatter.ts';
import { readShardedQuantileArms } from '../shards/sharded-quantiles.ts';
import { readShardedSamples } from '../shards/sharded-samples.ts';
import { readShardedStats } from '../shards/sharded-stats.ts';
import { type Caps, cappedCtes } from '../sql/capping-sql.ts';
import { type ArmSamples, readArmSamples } from '../sql/metric-samples.ts';
import { momentCtes } from '../sql/moments-sql.ts';
import { type QuantileArms, type QuantileSource, readQuantileArms } from '../sql/quantile-sql.ts';
import {
  readSliceValues,
  type Slicing,
  sliceCalls,
  sliceMembers,
  sliceUserCtes,
  valueUsers,
} from '../sql/slice-sql.ts';
import { parseStats, type SufficientStats } from '../sql/sufficient-stats.ts';
import type { ValueScope } from './value-scope.ts';

/** What a breakdown reads from the event data, keyed by slice and arm, wherever it lives. */
export interface BreakdownReads {
  values(dimension: string): Promise<string[]>;
  /** The slices' statistics, values held within the run's `caps`. */
  stats(
    metrics: readonly MetricDefinition[],
    slicing: Slicing,
    caps: Caps,
  ): Promise<SufficientStats>;
  quantiles(metric: MetricDefinition, slicing: Slicing): Promise<QuantileArms>;
  samples(metric: MetricDefinition, slicing: Slicing, cap: number, caps: Caps): Promise<ArmSamples>;
}

/**
 * The reads of a breakdown over `shards`: a breakdown is a run per slice, so it scatters and
 * merges as the run does (`eventReads`), with the slice-keyed statements. One shard reads as
 * before shards existed; several merge the moments (Chan), the quantiles' value counts and
 * cluster sums, the capped samples, and the top values (users added per value).
 */
export function breakdownReads(shards: ShardSet, scope: ValueScope): BreakdownReads {
  const source = (slicing: Slicing): QuantileSource => ({
    calls: (value) => sliceCalls(scope, slicing, value),
    members: sliceMembers(scope, slicing),
  });
  // A slice's `u` has no CUPED columns: the caps hold its y columns only.
  const userCtes = (slicing: Slicing, caps: Caps) => (ms: readonly MetricDefinition[]) =>
    cappedCtes(sliceUserCtes(scope, ms, slicing), ms, caps, false);
  const [only] = shards.all;
  if (only && !shards.sharded)
    return {
      values: (dimension) => readSliceValues(only.db, scope, dimension),
      stats: (metrics, slicing, caps) =>
        readSlicedStats(only.db, metrics, userCtes(slicing, caps)(metrics)),
      quantiles: (metric, slicing) => readQuantileArms(only.db, scope, metric, source(slicing)),
      samples: (metric, slicing, cap, caps) =>
        readArmSamples(only.db, { scope, metric, cap, userCtes: userCtes(slicing, caps) }),
    };
  return {
    values: (dimension) => shardedSliceValues(shards, scope, dimension),
    // No histograms in a slice: phase 2 has no bins to count.
    stats: (metrics, slicing, caps) =>
      readShardedStats(shards, scope, metrics, [], 0, userCtes(slicing, caps)),
    // A breakdown reads the raw calls: the fold's value counts keep no dimension.
    quantiles: (metric, slicing) =>
      readShardedQuantileArms(shards, scope, metric, { raw: true, source: source(slicing) }),
    samples: (metric, slicing, cap, caps) =>
      readShardedSamples(shards, { scope, metric, cap, userCtes: userCtes(slicing, caps) }),
  };
}

/** The moments of every metric per slice and arm, in one aggregate statement over `u`. */
async function readSlicedStats(
  db: Database,
  metrics: readonly MetricDefinition[],
  userCtes: SQL,
): Promise<SufficientStats> {
  const [row] = await inAnalysisTransaction(db, (tx) =>
    rows<Record<'arms' | 'sums', unknown>>(
      tx,
      sql`with ${userCtes}, ${momentCtes(metrics)}
      select
        (select coalesce(json_agg(json_build_object('variant', variant, 'users', users,
          'events', events)), '[]'::json) from centre where stats_rows > 0) as arms,
        (select coalesce(json_agg(sums_row), '[]'::json) from moments sums_row) as sums`,
    ),
  );
  return parseStats(row ?? {}, metrics, [], 0);
}

/**
 * `readSliceValues` over several shards: each shard's users per value (every value, as a value
 * outside a shard's own top ones may be among the merged top), added up (the shards hold
 * disjoint users), then ordered and cut on the first shard, so that ties fall by value under
 * the collation one database orders them by.
 */
async function shardedSliceValues(
  shards: ShardSet,
  scope: ValueScope,
  dimension: string,
): Promise<string[]> {
  const parts = await scatter(shards, (db) =>
    inAnalysisTransaction(db, (tx) =>
      rows<{ value: string; users: unknown }>(tx, valueUsers(scope, dimension)),
    ),
  );
  const users = new Map<string, number>();
  for (const r of parts.flat()) users.set(r.value, (users.get(r.value) ?? 0) + toNumber(r.users));
  const first = shards.all[0];
  if (!first || users.size === 0) return [];
  const json = JSON.stringify([...users].map(([value, n]) => ({ value, users: n })));
  const ordered = await rows<{ value: string }>(
    first.db,
    sql`select value from json_to_recordset(${json}::json) as t(value text, users int8)
      order by users desc, value limit ${MAX_SLICE_VALUES}`,
  );
  return ordered.map((r) => r.value);
}

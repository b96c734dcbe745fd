import { quantileRanks } from '@arbiter/stats';
import { type SQL, sql } from 'drizzle-orm';
import { callValueOrNull } from '../../db/call-values.ts';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { clustersStatement, foldedValueCounts } from '../sql/quantile-counts-sql.ts';
import {
  type ArmRow,
  armOf,
  clusterCtes,
  type QuantileArms,
  type QuantileSource,
  quantileOf,
  runSource,
} from '../sql/quantile-sql.ts';
import { scatterTwoPhase } from './two-phase-scatter.ts';

interface ValueCount {
  variant: string;
  v: unknown;
  n: unknown;
}
type OrderStats = Pick<ArmRow, 'variant' | 'calls' | 'est' | 'lo' | 'hi'>;
type Clusters = Omit<ArmRow, 'calls' | 'est' | 'lo' | 'hi'>;

/**
 * A quantile metric's arms over several shards, equal to the single database's
 * (docs/decisions/scale-out.md#analysis-over-several-shards), in two phases on one snapshot per shard.
 * Phase 1: each shard's distinct values per arm with their counts; the coordinator adds the
 * counts per value, takes the ranks `quantileRanks` gives the arm's total and walks the merged
 * values in order to the order statistics, exactly as the single statement's running count
 * does. Phase 2: each shard's per-user counts at or below that estimate, summed per arm; a
 * user's calls are all on one shard, so the sums add up. `raw` reads the raw calls (as
 * `readQuantileArms`; a window the retention purge reached, a breakdown), else the fold's value
 * counts and the raw calls above the estimate (as `readFoldedQuantileArms`); `source` (raw
 * only) is a breakdown's.
 */
export async function readShardedQuantileArms(
  shards: ShardSet,
  scope: ValueScope,
  metric: MetricDefinition,
  reading: { raw: boolean; source?: QuantileSource },
): Promise<QuantileArms> {
  const { level, kind } = quantileOf(metric);
  const source = reading.source ?? runSource(scope);
  // Phase 2 of the raw read counts over the calls phase 1 kept, not a second read of them.
  const raw = {
    first: async (tx: Database) => {
      await tx.execute(sql`create temporary table shard_calls on commit drop as
        ${source.calls(callValueOrNull(kind))}`);
      return distinctCounts(tx, sql`select variant, v, count(*) as n from shard_calls c`);
    },
    second: (tx: Database, picks: readonly OrderStats[]) =>
      rows<Clusters>(
        tx,
        sql`with calls as (select * from shard_calls), ${picksCte(picks)},
          ${clusterCtes(source.members)}
          select * from clusters`,
      ),
  };
  const folded = {
    first: (tx: Database) =>
      distinctCounts(
        tx,
        sql`select variant, v, sum(n) as n from (${foldedValueCounts(scope, kind)}) c`,
      ),
    second: (tx: Database, picks: readonly OrderStats[]) =>
      rows<Clusters>(tx, clustersStatement(scope, kind, picks)),
  };
  const phases = reading.raw ? raw : folded;
  const { combined, seconds } = await scatterTwoPhase(
    shards,
    phases.first,
    (parts) => mergedPicks(parts.flat(), level),
    async (tx, picks): Promise<Clusters[]> => (picks.length ? phases.second(tx, picks) : []),
    { snapshot: true },
  );
  const clusters = addClusters(seconds.flat());
  return {
    level,
    arms: Object.fromEntries(
      combined.map((p) => [
        p.variant,
        armOf({ ...EMPTY_CLUSTERS, ...clusters.get(p.variant), ...p }),
      ]),
    ),
  };
}

/** A shard's (variant, v, n) rows of `counted`, grouped by arm and value. */
function distinctCounts(tx: Database, counted: SQL): Promise<ValueCount[]> {
  return rows<ValueCount>(tx, sql`${counted} group by variant, v`);
}

/**
 * Per arm, its calls and the order statistics at `quantileRanks`' ranks over the shards'
 * value counts added up: x(k) is the least value whose running count reaches k.
 */
function mergedPicks(counts: readonly ValueCount[], level: number): OrderStats[] {
  const arms = new Map<string, Map<number, number>>();
  for (const c of counts) {
    const values = arms.get(c.variant) ?? new Map<number, number>();
    const v = toNumber(c.v);
    values.set(v, (values.get(v) ?? 0) + toNumber(c.n));
    arms.set(c.variant, values);
  }
  return [...arms].map(([variant, values]) => {
    const sorted = [...values].sort((a, b) => a[0] - b[0]);
    const calls = sorted.reduce((total, [, n]) => total + n, 0);
    const ranks = quantileRanks(calls, level);
    const at = (k: number) => {
      let upto = 0;
      for (const [v, n] of sorted) {
        upto += n;
        if (upto >= k) return v;
      }
      return null;
    };
    return { variant, calls, est: at(ranks.estimate), lo: at(ranks.lower), hi: at(ranks.upper) };
  });
}

/** The picks as the CTE `picks` (variant, est), each estimate as its round-trip text. */
function picksCte(picks: readonly OrderStats[]): SQL {
  const json = JSON.stringify(picks.map((p) => ({ variant: p.variant, est: p.est })));
  return sql`picks as (select * from json_to_recordset(${json}::json) as p(variant text, est float8))`;
}

const EMPTY_CLUSTERS = { users: 0, sum_a: 0, sum_aa: 0, sum_b: 0, sum_bb: 0, sum_ab: 0 };
const CLUSTER_SUMS = ['users', 'sum_a', 'sum_aa', 'sum_b', 'sum_bb', 'sum_ab'] as const;

/** The shards' cluster sums added per arm: integers, exact in a double far past any arm. */
function addClusters(parts: readonly Clusters[]): Map<string, typeof EMPTY_CLUSTERS> {
  const out = new Map<string, typeof EMPTY_CLUSTERS>();
  for (const part of parts) {
    const sum = out.get(part.variant) ?? { ...EMPTY_CLUSTERS };
    for (const key of CLUSTER_SUMS) sum[key] += toNumber(part[key] ?? 0);
    out.set(part.variant, sum);
  }
  return out;
}

import {
  type CovariateSummary,
  DEFAULT_HISTOGRAM_BINS,
  mergeCovariateSummaries,
  pooledBinEdges,
} from '@arbiter/stats';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { binnedCtes, binnedPairs, type HistogramGroup } from '../sql/histogram-sql.ts';
import { momentCtes } from '../sql/moments-sql.ts';
import {
  covariateSummaryOf,
  parseStats,
  type SufficientStats,
  type SumsRow,
} from '../sql/sufficient-stats.ts';
import { perUserCtes } from '../sql/user-values-sql.ts';
import { scatterTwoPhase } from './two-phase-scatter.ts';

interface ArmRow {
  variant: string;
  users: unknown;
  events: unknown;
}
interface RangeRow {
  metric: string;
  variant: string;
  lo: unknown;
  hi: unknown;
}
interface BinRow {
  metric: string;
  g: string;
  variant: string;
  bucket: unknown;
  c: unknown;
}
interface Partials {
  arms: ArmRow[];
  sums: SumsRow[];
  ranges: RangeRow[];
}

const json = <T>(v: unknown): T[] => (typeof v === 'string' ? JSON.parse(v) : (v ?? [])) as T[];

/**
 * `readSufficientStats` over several shards, each holding a disjoint set of users, in two
 * phases run on every shard at once. Phase 1: per arm its users and exposures, per metric and
 * arm the shifted sums and the min and max; the coordinator adds the counts, merges the sums
 * (Chan's update) and pools the ranges into the bin edges the single statement would compute.
 * Phase 2: each shard bins its values over those edges; the counts add up. Counts, ranges,
 * edges and bins equal the single database's exactly; the moments to rounding.
 */
export async function readShardedStats(
  shards: ShardSet,
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins = DEFAULT_HISTOGRAM_BINS,
  /** The CTEs ending in `u` the values come from: the run's own, or a breakdown's. */
  userCtes: (metrics: readonly MetricDefinition[]) => SQL = (ms) => perUserCtes(scope, ms),
): Promise<SufficientStats> {
  const binned = binnedPairs(metrics, groups).length > 0;
  const { firsts, combined, seconds } = await scatterTwoPhase(
    shards,
    async (tx): Promise<Partials> => {
      const [row] = await rows<Record<keyof Partials, unknown>>(
        tx,
        binned
          ? await keepingBinnedValues(tx, metrics, userCtes(metrics))
          : partials(userCtes(metrics), metrics),
      );
      return {
        arms: json(row?.arms),
        sums: json(row?.sums),
        ranges: json(row?.ranges),
      } as Partials;
    },
    (parts) => pooledEdges(parts, metrics, groups, bins),
    async (tx, edges): Promise<BinRow[]> =>
      binned && edges.length ? binCounts(tx, metrics, groups, bins, edges) : [],
  );
  const stats = parseStats(
    { arms: addArms(firsts), sums: [], edges: combined, bins: addBins(seconds) },
    metrics,
    groups,
    bins,
  );
  for (const [key, merged] of mergedSums(firsts)) {
    const [metric, variant] = JSON.parse(key) as [string, string];
    const target = stats.metrics[metric];
    if (target) target.arms[variant] = merged;
  }
  return stats;
}

/**
 * Phase 1's statement when phase 2 bins: the partials, and each user's values kept in the
 * temporary table `shard_u` by the same statement (a data-modifying CTE over the materialized
 * `u`), so the per-user rows are computed once and read from memory, as the single statement
 * reads them. Only what binning reads is kept (the arm and the values, not the user id or the
 * covariates): the table's writes are most of what a shard costs beyond the single statement.
 * The table is made first, empty, by the same query (its column types are the query's).
 * Exported, like `partials` and `SHARD_U`, for bench/server/shard-phases.bench.ts.
 */
export async function keepingBinnedValues(
  tx: Database,
  metrics: readonly MetricDefinition[],
  ctes: SQL,
): Promise<SQL> {
  const kept = sql.join(
    ['variant', ...metrics.map((_, i) => `y_${i}`)].map((c) => sql.raw(c)),
    sql`, `,
  );
  await tx.execute(sql`create temporary table shard_u on commit drop as
    with ${ctes} select ${kept} from u limit 0`);
  return partials(sql`${ctes}, kept as (insert into shard_u select ${kept} from u)`, metrics);
}

/** The arms, the shifted sums and the ranges of the per-user rows `u` the CTEs `ctes` end in. */
export function partials(ctes: SQL, metrics: readonly MetricDefinition[]): SQL {
  return sql`with ${ctes}, ${momentCtes(metrics)}
    select
      (select coalesce(json_agg(json_build_object('variant', variant, 'users', users,
        'events', events)), '[]'::json) from centre where stats_rows > 0) as arms,
      (select coalesce(json_agg(sums_row), '[]'::json) from moments sums_row) as sums,
      (select coalesce(json_agg(json_build_object('metric', metric, 'variant', variant,
        'lo', lo, 'hi', hi)), '[]'::json) from cm) as ranges`;
}

/** The shard's kept values as `u`, the relation phase 2's binning reads. */
export const SHARD_U = sql`u as (select * from shard_u)`;

/** Each arm's users and exposures, added over the shards, in the order arms first appear. */
function addArms(parts: readonly Partials[]): ArmRow[] {
  const out = new Map<string, { variant: string; users: number; events: number }>();
  for (const a of parts.flatMap((p) => p.arms)) {
    const sum = out.get(a.variant) ?? { variant: a.variant, users: 0, events: 0 };
    sum.users += toNumber(a.users);
    sum.events += toNumber(a.events);
    out.set(a.variant, sum);
  }
  return [...out.values()];
}

/** Per metric and arm (keyed by both as JSON), the shards' shifted sums merged. */
function mergedSums(parts: readonly Partials[]): Map<string, CovariateSummary> {
  const byKey = new Map<string, CovariateSummary[]>();
  for (const s of parts.flatMap((p) => p.sums)) {
    const key = JSON.stringify([s.metric, s.variant]);
    byKey.set(key, [...(byKey.get(key) ?? []), covariateSummaryOf(s)]);
  }
  return new Map(
    [...byKey].map(([key, list]) => [
      key,
      list.length === 1 ? (list[0] as CovariateSummary) : mergeCovariateSummaries(...list),
    ]),
  );
}

/** The edges of every metric and group with a value, over the group's pooled min and max. */
function pooledEdges(
  parts: readonly Partials[],
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins: number,
): Array<{ metric: string; g: string; edges: number[] }> {
  const ranges = parts.flatMap((p) => p.ranges);
  const out: Array<{ metric: string; g: string; edges: number[] }> = [];
  for (const m of metrics)
    for (const g of groups) {
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const r of ranges) {
        if (r.metric !== m.name || (g.variants !== 'all' && !g.variants.includes(r.variant)))
          continue;
        lo = Math.min(lo, toNumber(r.lo));
        hi = Math.max(hi, toNumber(r.hi));
      }
      const edges = pooledBinEdges(lo, hi, bins);
      if (edges) out.push({ metric: m.name, g: g.key, edges });
    }
  return out;
}

/** Phase 2 on one shard: its bin counts over the pooled edges. */
async function binCounts(
  tx: Database,
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins: number,
  edges: ReadonlyArray<{ metric: string; g: string; edges: number[] }>,
): Promise<BinRow[]> {
  // Each edge as its shortest round-trip text: float8 reads back the same double.
  const edgeRows = edges.map(
    (e) =>
      sql`(${e.metric}::text, ${e.g}::text, array[${sql.join(
        e.edges.map((x) => sql`${String(x)}::float8`),
        sql`, `,
      )}])`,
  );
  const [row] = await rows<{ bins: unknown }>(
    tx,
    sql`with ${SHARD_U},
      edges(metric, g, edges) as (values ${sql.join(edgeRows, sql`, `)}),
      ${binnedCtes(metrics, groups, bins)}
      select coalesce(json_agg(bins_row), '[]'::json) as bins from bins bins_row`,
  );
  return json<BinRow>(row?.bins);
}

/** The shards' bin counts added per metric, group, arm and bin. */
function addBins(parts: readonly BinRow[][]): BinRow[] {
  const out = new Map<string, BinRow & { c: number }>();
  for (const b of parts.flat()) {
    const key = JSON.stringify([b.metric, b.g, b.variant, toNumber(b.bucket)]);
    const sum = out.get(key) ?? { ...b, c: 0 };
    sum.c += toNumber(b.c);
    out.set(key, sum);
  }
  return [...out.values()];
}

import {
  type CovariateSummary,
  DEFAULT_HISTOGRAM_BINS,
  EMPTY_COVARIATE_SUMMARY,
  type Histogram,
} from '@arbiter/stats';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../db/connect.ts';
import type { ArmStatus } from '../schemas/analysis-run.ts';
import type { MetricDefinition } from '../schemas/experiment-config.ts';
import { userCtes, userValues } from './user-values-sql.ts';
import type { ValueScope } from './value-scope.ts';

/** Arms whose histograms share bin edges: a (control, treatment) pair, or every arm (live). */
export interface HistogramGroup {
  key: string;
  /** 'all': every arm that has values (the live view). */
  variants: readonly string[] | 'all';
}

export interface MetricStats {
  /** Per arm: n and the shifted sums of y (the metric) and x (CUPED's covariate, else 0). */
  arms: Record<string, CovariateSummary>;
  /** Per histogram group, numpy-style bins over the group's pooled min and max. */
  histograms: Record<string, Histogram>;
}

export interface SufficientStats {
  arms: Record<string, ArmStatus>;
  metrics: Record<string, MetricStats>;
}

/**
 * Everything the moment-based tests, SRM and the histograms need, in one aggregate statement
 * over the daily aggregates: per arm its exposed users and exposures, and per metric and arm
 * n, the shifts and the sums of (y − shift), (y − shift)², and CUPED's x, x², xy the same way
 * (README of @arbiter/stats, "The SQL contract"), and bin counts over shared edges. Per-user
 * values exist only inside the statement; Node gets a few rows per metric and arm.
 *
 * Why the shift: one-pass raw sums of squares lose every digit of the spread when the mean is
 * large against it (1e9 ± 0.01); sums around the arm's own mean keep them. A square beyond
 * 1e280 becomes Infinity (the tests report `non_finite`) rather than a float8 overflow error.
 */
export async function readSufficientStats(
  db: Database,
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins = DEFAULT_HISTOGRAM_BINS,
): Promise<SufficientStats> {
  const [row] = await withHashJoins(db, (tx) =>
    rows<Record<'arms' | 'sums' | 'edges' | 'bins', unknown>>(
      tx,
      sufficientStatsStatement(scope, metrics, groups, bins),
    ),
  );
  return parseStats(row ?? {}, metrics, groups, bins);
}

/**
 * Runs `work` in a transaction that plans without nested loops. Every join of the analysis
 * statements is between per-user sets (or a per-user set and a few rows); before autovacuum has
 * analysed freshly loaded aggregates the planner estimates one row each and picks nested loops,
 * which are quadratic in users (1.4 s at 800 users, hours at a million). Hash joins are linear
 * whatever the estimates.
 */
export async function withHashJoins<T>(
  db: Database,
  work: (tx: Database) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_nestloop = off`);
    return work(tx as unknown as Database);
  });
}

/** The statement `readSufficientStats` runs (exported so benchmarks can EXPLAIN it). */
export function sufficientStatsStatement(
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins = DEFAULT_HISTOGRAM_BINS,
): SQL {
  const branches = metrics.map((m, i) => userValues(scope, m, i));
  const uv = branches.length
    ? sql.join(branches, sql` union all `)
    : sql`select null::text as metric, null::text as variant, null::text as user_id, null::float8 as value, null::float8 as covariate where false`;
  return sql`with ${userCtes(scope, metrics)},
      uv as materialized (${uv}),
      ${momentCtes},
      grp(g, variant) as (${groupRows(groups)}),
      ${histogramCtes(bins)}
    select
      (select coalesce(json_agg(arm_row), '[]'::json) from (
        select variant, count(*) filter (where exposures > 0) as users,
          coalesce(sum(exposures) filter (where exposures > 0), 0) as events
        from su group by variant) arm_row) as arms,
      (select coalesce(json_agg(sums_row), '[]'::json) from sums sums_row) as sums,
      (select coalesce(json_agg(edges_row), '[]'::json) from edges edges_row) as edges,
      (select coalesce(json_agg(bins_row), '[]'::json) from bins bins_row) as bins`;
}

const square = (d: SQL) =>
  sql`case when abs(${d}) < 1e140 then ${d} * ${d} else 'Infinity'::float8 end`;
const product = (a: SQL, b: SQL) =>
  sql`case when abs(${a}) < 1e140 and abs(${b}) < 1e140 then ${a} * ${b} else 'Infinity'::float8 end`;
const dy = sql`(uv.value - c.shift_y)`;
const dx = sql`(coalesce(uv.covariate, 0) - c.shift_x)`;

/** Two passes over the per-user values: the arm's centre, then the sums around it. */
const momentCtes = sql`centre as (
    select metric, variant, count(*) as n, count(covariate) as n_cov,
      min(value) as lo, max(value) as hi,
      case when min(value) = max(value) then min(value) else sum(value) / count(*) end as shift_y,
      case when min(coalesce(covariate, 0)) = max(coalesce(covariate, 0))
        then min(coalesce(covariate, 0)) else sum(coalesce(covariate, 0)) / count(*) end as shift_x
    from uv group by metric, variant
  ),
  sums as (
    select c.metric, c.variant, min(c.n) as n, min(c.n_cov) as n_cov, min(c.shift_y) as shift_y,
      min(c.shift_x) as shift_x, sum(${dy}) as sum_y, sum(${square(dy)}) as sum_yy,
      sum(${dx}) as sum_x, sum(${square(dx)}) as sum_xx, sum(${product(dx, dy)}) as sum_xy
    from uv join centre c on c.metric = uv.metric and c.variant = uv.variant
    group by c.metric, c.variant
  )`;

function groupRows(groups: readonly HistogramGroup[]): SQL {
  const rowsOf = (g: HistogramGroup) =>
    g.variants === 'all'
      ? [sql`select distinct ${g.key}::text, variant from uv`]
      : g.variants.map((v) => sql`select ${g.key}::text, ${v}::text`);
  const parts = groups.flatMap(rowsOf);
  return parts.length
    ? sql.join(parts, sql` union all `)
    : sql`select null::text, null::text where false`;
}

/**
 * numpy.histogram(values, bins, range=(min, max)) per arm, as `histogram()` of @arbiter/stats:
 * edges i·((hi − lo)/k) + lo with the last one hi, a single value v widened to v ± 0.5, bins
 * [a, b) but the last closed. `width_bucket` over the edges array is that binary search.
 */
function histogramCtes(bins: number): SQL {
  const k = sql.raw(String(bins));
  return sql`bounds as (
    select c.metric, g.g, min(c.lo) as lo, max(c.hi) as hi
    from centre c join grp g on g.variant = c.variant group by c.metric, g.g
  ),
  widened as (
    select metric, g,
      case when lo < hi then lo when lo - 0.5 < lo then lo - 0.5 else lo - abs(lo) * 1e-9 end as lo,
      case when lo < hi then hi when hi + 0.5 > hi then hi + 0.5 else hi + abs(hi) * 1e-9 end as hi
    from bounds
  ),
  edges as (
    select metric, g, array(
      select case when i = ${k} then w.hi else i * ((w.hi - w.lo) / ${k}) + w.lo end
      from generate_series(0, ${k}) i order by i) as edges
    from widened w
  ),
  bins as (
    select uv.metric, g.g, uv.variant, least(width_bucket(uv.value, e.edges), ${k}) as bucket,
      count(*) as c
    from uv join grp g on g.variant = uv.variant
      join edges e on e.metric = uv.metric and e.g = g.g
    group by uv.metric, g.g, uv.variant, 4
  )`;
}

interface SumsRow {
  metric: string;
  variant: string;
  n: unknown;
  n_cov: unknown;
  shift_y: unknown;
  shift_x: unknown;
  sum_y: unknown;
  sum_yy: unknown;
  sum_x: unknown;
  sum_xx: unknown;
  sum_xy: unknown;
}

function parseStats(
  row: Partial<Record<'arms' | 'sums' | 'edges' | 'bins', unknown>>,
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins: number,
): SufficientStats {
  const json = <T>(v: unknown): T[] => (typeof v === 'string' ? JSON.parse(v) : (v ?? [])) as T[];
  const arms: Record<string, ArmStatus> = {};
  for (const a of json<{ variant: string; users: unknown; events: unknown }>(row.arms))
    arms[a.variant] = { users: toNumber(a.users), events: toNumber(a.events) };
  const out: Record<string, MetricStats> = {};
  for (const m of metrics) out[m.name] = { arms: {}, histograms: emptyHistograms(groups, bins) };
  for (const s of json<SumsRow>(row.sums)) {
    const target = out[s.metric];
    if (target) target.arms[s.variant] = covariateSummaryOf(s);
  }
  for (const e of json<{ metric: string; g: string; edges: unknown[] }>(row.edges)) {
    const h = out[e.metric]?.histograms[e.g];
    if (h) h.bin_edges = e.edges.map(toNumber);
  }
  for (const b of json<{ metric: string; g: string; variant: string; bucket: unknown; c: unknown }>(
    row.bins,
  )) {
    const h = out[b.metric]?.histograms[b.g];
    if (!h) continue;
    const counts = h.counts[b.variant] ?? new Array<number>(bins).fill(0);
    counts[toNumber(b.bucket) - 1] = toNumber(b.c);
    h.counts[b.variant] = counts;
  }
  for (const m of Object.values(out))
    for (const h of Object.values(m.histograms))
      if (h.bin_edges.length === 0) for (const v of Object.keys(h.counts)) h.counts[v] = [];
  return { arms, metrics: out };
}

function emptyHistograms(groups: readonly HistogramGroup[], bins: number) {
  return Object.fromEntries(
    groups.map((g) => [
      g.key,
      {
        bin_edges: [] as number[],
        counts: Object.fromEntries(
          (g.variants === 'all' ? [] : g.variants).map((v) => [v, new Array<number>(bins).fill(0)]),
        ),
      },
    ]),
  );
}

function covariateSummaryOf(s: SumsRow): CovariateSummary {
  const n = toNumber(s.n);
  if (n === 0) return { ...EMPTY_COVARIATE_SUMMARY };
  return {
    n,
    nWithCovariate: toNumber(s.n_cov),
    sumY: toNumber(s.sum_y),
    sumYY: toNumber(s.sum_yy),
    sumX: toNumber(s.sum_x),
    sumXX: toNumber(s.sum_xx),
    sumXY: toNumber(s.sum_xy),
    shiftY: toNumber(s.shift_y),
    shiftX: toNumber(s.shift_x),
  };
}

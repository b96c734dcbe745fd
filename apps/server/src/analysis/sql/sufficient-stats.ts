import {
  type CovariateSummary,
  DEFAULT_HISTOGRAM_BINS,
  EMPTY_COVARIATE_SUMMARY,
  type Histogram,
} from '@arbiter/stats';
import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../../db/connect.ts';
import type { ArmStatus } from '../../schemas/analysis-run.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { inAnalysisTransaction } from '../run/analysis-transaction.ts';
import { type HistogramGroup, histogramCtes } from './histogram-sql.ts';
import { momentCtes } from './moments-sql.ts';
import { perUserCtes } from './user-values-sql.ts';

/** The CTEs ending in `u` (the per-user rows) of a list of metrics. */
export type UserCtes = (metrics: readonly MetricDefinition[]) => SQL;

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
 * n, the shifts and the centred sums (`momentCtes`), and bin counts over shared edges
 * (`histogramCtes`). Per-user values exist only inside the statement; Node gets a few rows per
 * metric and arm.
 */
export async function readSufficientStats(
  db: Database,
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins = DEFAULT_HISTOGRAM_BINS,
  /** The CTEs ending in `u` the values come from: the run's own, or held within caps. */
  userCtes: UserCtes = (ms) => perUserCtes(scope, ms),
): Promise<SufficientStats> {
  const [row] = await inAnalysisTransaction(db, (tx) =>
    rows<Record<'arms' | 'sums' | 'edges' | 'bins', unknown>>(
      tx,
      sufficientStatsStatement(scope, metrics, groups, bins, userCtes),
    ),
  );
  return parseStats(row ?? {}, metrics, groups, bins);
}

/** The statement `readSufficientStats` runs (exported so benchmarks can EXPLAIN it). */
export function sufficientStatsStatement(
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  groups: readonly HistogramGroup[],
  bins = DEFAULT_HISTOGRAM_BINS,
  userCtes: UserCtes = (ms) => perUserCtes(scope, ms),
): SQL {
  return sql`with ${userCtes(metrics)},
      ${momentCtes(metrics)},
      ${histogramCtes(metrics, groups, bins)}
    select
      (select coalesce(json_agg(json_build_object('variant', variant, 'users', users,
        'events', events)), '[]'::json) from centre where stats_rows > 0) as arms,
      (select coalesce(json_agg(sums_row), '[]'::json) from moments sums_row) as sums,
      (select coalesce(json_agg(edges_row), '[]'::json) from edges edges_row) as edges,
      (select coalesce(json_agg(bins_row), '[]'::json) from bins bins_row) as bins`;
}

export interface SumsRow {
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

export function parseStats(
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

export function covariateSummaryOf(s: SumsRow): CovariateSummary {
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

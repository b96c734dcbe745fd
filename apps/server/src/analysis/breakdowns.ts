import { OTHER_SLICE } from '@arbiter/contract';
import { sql } from 'drizzle-orm';
import { type Database, rows } from '../db/connect.ts';
import type { Slice, StoredSlices } from '../schemas/analysis-run.ts';
import type { MetricDefinition } from '../schemas/experiment-config.ts';
import { inAnalysisTransaction } from './analysis-transaction.ts';
import type { MetricInput, RunInputs } from './compute-run.ts';
import { readArmSamples } from './metric-samples.ts';
import { momentCtes } from './moments-sql.ts';
import { type QuantileArms, readQuantileArms } from './quantile-sql.ts';
import { computeSlice } from './slice-run.ts';
import {
  readSliceValues,
  type Slicing,
  sliceCalls,
  sliceMembers,
  sliceUserCtes,
  splitSliceKey,
} from './slice-sql.ts';
import { parseStats, type SufficientStats } from './sufficient-stats.ts';
import type { ValueScope } from './value-scope.ts';

/** Every asked dimension's slices of a run whose own results are computed. */
export async function readBreakdowns(
  db: Database,
  scope: ValueScope,
  run: RunInputs,
  dimensions: readonly string[],
): Promise<StoredSlices> {
  const out: StoredSlices = {};
  for (const dimension of dimensions)
    out[dimension] = await readBreakdown(db, scope, run, dimension);
  return out;
}

/**
 * One dimension's slices: the top values first (one short statement), then the same
 * sufficient statistics, quantile order statistics and capped samples the run reads, keyed by
 * slice and arm in SQL, and each slice computed by `computeSlice` with the run's arms, tests
 * and plan. Slices come in descending order of users, `(other)` last.
 */
async function readBreakdown(
  db: Database,
  scope: ValueScope,
  run: RunInputs,
  dimension: string,
): Promise<Slice[]> {
  const values = await readSliceValues(db, scope, dimension);
  if (values.length === 0) return [];
  const slicing: Slicing = { dimension, values };
  // CUPED does not apply in slices: each metric is read without its covariate.
  const plain = run.metrics.map((m) => ({ ...m.definition, cuped: undefined }));
  const stats = await readSlicedStats(db, scope, plain, slicing);
  const metrics: Array<MetricInput & { keyed: KeyedReads }> = [];
  for (const [i, m] of run.metrics.entries()) {
    const definition = plain[i] as MetricDefinition;
    metrics.push({
      ...m,
      definition,
      keyed: await keyedReads(db, scope, m, definition, slicing, run.plan.max_sample_per_arm),
    });
  }
  const slices = [...values, OTHER_SLICE];
  const present = new Set(Object.keys(stats.arms).map((k) => splitSliceKey(k).slice));
  return slices
    .filter((value) => present.has(value))
    .map((value) =>
      computeSlice(value, {
        ...run,
        arms: ofSlice(stats.arms, value),
        metrics: metrics.map(({ keyed, ...m }) => sliceMetric(m, stats, keyed, value)),
      }),
    )
    .sort((a, b) =>
      a.value === OTHER_SLICE ? 1 : b.value === OTHER_SLICE ? -1 : b.users - a.users,
    );
}

interface KeyedReads {
  quantiles: QuantileArms | null;
  samples: MetricInput['samples'];
}

/** A metric's quantile arms and samples, keyed by slice and arm, when its test needs them. */
async function keyedReads(
  db: Database,
  scope: ValueScope,
  m: MetricInput,
  definition: MetricDefinition,
  slicing: Slicing,
  cap: number,
): Promise<KeyedReads> {
  const quantiles =
    definition.quantile === undefined
      ? null
      : await readQuantileArms(db, scope, definition, {
          calls: (value) => sliceCalls(scope, slicing, value),
          members: sliceMembers(scope, slicing),
        });
  const samples =
    m.samples === null
      ? null
      : await readArmSamples(db, scope, definition, cap, (ms) => sliceUserCtes(scope, ms, slicing));
  return { quantiles, samples };
}

/** The entries of a slice-and-arm keyed record that belong to `slice`, keyed by arm. */
function ofSlice<T>(keyed: Record<string, T>, slice: string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, v] of Object.entries(keyed)) {
    const { slice: s, variant } = splitSliceKey(key);
    if (s === slice) out[variant] = v;
  }
  return out;
}

/** One metric of the run as the slice `value` sees it. */
function sliceMetric(
  m: MetricInput,
  stats: SufficientStats,
  keyed: KeyedReads,
  value: string,
): MetricInput {
  const arms = ofSlice(stats.metrics[m.definition.name]?.arms ?? {}, value);
  const { quantiles, samples } = keyed;
  return {
    ...m,
    stats: { arms, histograms: {} },
    quantiles: quantiles && { level: quantiles.level, arms: ofSlice(quantiles.arms, value) },
    samples: samples && {
      values: ofSlice(samples.values, value),
      capUsed: samples.capUsed,
    },
  };
}

/** The moments of every metric per slice and arm, in one aggregate statement over `u`. */
async function readSlicedStats(
  db: Database,
  scope: ValueScope,
  metrics: readonly MetricDefinition[],
  slicing: Slicing,
): Promise<SufficientStats> {
  const [row] = await inAnalysisTransaction(db, (tx) =>
    rows<Record<'arms' | 'sums', unknown>>(
      tx,
      sql`with ${sliceUserCtes(scope, metrics, slicing)}, ${momentCtes(metrics)}
      select
        (select coalesce(json_agg(json_build_object('variant', variant, 'users', users,
          'events', events)), '[]'::json) from centre where stats_rows > 0) as arms,
        (select coalesce(json_agg(sums_row), '[]'::json) from moments sums_row) as sums`,
    ),
  );
  return parseStats(row ?? {}, metrics, [], 0);
}

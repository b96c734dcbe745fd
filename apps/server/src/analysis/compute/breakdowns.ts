import { OTHER_SLICE } from '@arbiter/contract';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import type { Slice, StoredSlices } from '../../schemas/analysis-run.ts';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';
import { type BreakdownReads, breakdownReads } from '../reads/breakdown-reads.ts';
import type { ValueScope } from '../reads/value-scope.ts';
import { type AppliedCap, type Caps, NO_CAPS } from '../sql/capping-sql.ts';
import type { QuantileArms } from '../sql/quantile-sql.ts';
import { type Slicing, splitSliceKey } from '../sql/slice-sql.ts';
import type { SufficientStats } from '../sql/sufficient-stats.ts';
import type { MetricInput, RunInputs } from './compute-run.ts';
import { computeSlice } from './slice-run.ts';

/** Every asked dimension's slices of a run whose own results are computed. */
export async function readBreakdowns(
  shards: ShardSet,
  scope: ValueScope,
  run: RunInputs,
  dimensions: readonly string[],
): Promise<StoredSlices> {
  const reads = breakdownReads(shards, scope);
  const out: StoredSlices = {};
  for (const dimension of dimensions) out[dimension] = await readBreakdown(reads, run, dimension);
  return out;
}

/**
 * One dimension's slices: the top values first (one short statement), then the same
 * sufficient statistics, quantile order statistics and capped samples the run reads, keyed by
 * slice and arm in SQL, and each slice computed by `computeSlice` with the run's arms, tests
 * and plan. Slices come in descending order of users, `(other)` last.
 */
async function readBreakdown(
  reads: BreakdownReads,
  run: RunInputs,
  dimension: string,
): Promise<Slice[]> {
  const values = await reads.values(dimension);
  if (values.length === 0) return [];
  const slicing: Slicing = { dimension, values };
  // CUPED does not apply in slices: each metric is read without its covariate.
  const plain = run.metrics.map((m) => ({ ...m.definition, cuped: undefined }));
  const caps = runCaps(run);
  const stats = await reads.stats(plain, slicing, caps);
  const metrics: Array<MetricInput & { keyed: KeyedReads }> = [];
  for (const [i, m] of run.metrics.entries()) {
    const definition = plain[i] as MetricDefinition;
    const keyed: KeyedReads = {
      quantiles:
        definition.quantile === undefined ? null : await reads.quantiles(definition, slicing),
      samples:
        m.samples === null
          ? null
          : await reads.samples(
              definition,
              slicing,
              run.plan.max_sample_per_arm,
              m.method === 'permutation' ? caps : NO_CAPS,
            ),
    };
    metrics.push({ ...m, definition, keyed });
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

/**
 * The bounds the run held each metric's values within: slices hold theirs within the same
 * bounds (a slice's own percentile would cap a different tail in every slice), Mann–Whitney's
 * values stay uncapped as in the run.
 */
function runCaps(run: RunInputs): Caps {
  const out = new Map<string, AppliedCap>();
  for (const m of run.metrics)
    if (m.cap && m.method !== 'mann_whitney') out.set(m.definition.name, m.cap);
  return out;
}

/** A metric's quantile arms and samples, keyed by slice and arm, when its test needs them. */
interface KeyedReads {
  quantiles: QuantileArms | null;
  samples: MetricInput['samples'];
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
  // The run's result reports the cap and its users; a slice's rows do not repeat them.
  const { cap: _reported, ...rest } = m;
  return {
    ...rest,
    stats: { arms, histograms: {} },
    quantiles: quantiles && { level: quantiles.level, arms: ofSlice(quantiles.arms, value) },
    samples: samples && {
      values: ofSlice(samples.values, value),
      capUsed: samples.capUsed,
    },
  };
}

import {
  type CovariateSummary,
  confidenceSequence,
  EMPTY_COVARIATE_SUMMARY,
  type Estimate,
  mannWhitneyTest,
  metricSummary,
  permutationTest,
  type QuantileArm,
  quantileTest,
  ratioTest,
  type SequentialResult,
  type TwoSampleResult,
  testSummaryPair,
  welchEstimate,
  welchTest,
} from '@arbiter/stats';
import type { PlanLimit } from '../../domain/plans/plans.ts';
import type { MetricResult } from '../../schemas/analysis-run.ts';

export type Method = 'welch_t' | 'mann_whitney' | 'permutation' | 'two_proportion_z';

/** The seed of every permutation test: a re-run of the same data gives the same p-value. */
const PERMUTATION_SEED = 20_261_121;

/** One pair's arms as the tests see them: full-arm summaries, and samples when the test needs them. */
export interface PairArms {
  control: CovariateSummary;
  treatment: CovariateSummary;
  /** Mann–Whitney and permutation only: the capped samples of both arms. */
  samples?: { control: number[]; treatment: number[]; capUsed: boolean };
  /** Quantile metrics only: both arms' order statistics and clusters, and the level (×10⁴). */
  quantile?: { control: QuantileArm; treatment: QuantileArm; level: number };
}

export interface PairOutcome extends TwoSampleResult {
  permutations_used: number;
  sample_cap_used: boolean;
  cuped: MetricResult['cuped'];
  unadjusted: MetricResult['unadjusted'];
  /** The confidence sequence (manual runs), before BH. */
  sequential: SequentialResult | null;
  /** A quantile's or ratio's value per arm (other metrics: the mean of per-user values). */
  values: { control: number; treatment: number } | null;
  /** A quantile metric's model calls per arm. */
  calls: { control: number; treatment: number } | null;
}

export interface PairOptions {
  plan: Pick<PlanLimit, 'max_permutations' | 'max_sample_per_arm'>;
  /** CUPED requested for the metric (the test must be Welch for it to apply). */
  cuped: boolean;
  /** The confidence sequence's tuning on a manual run; null on a nightly run. */
  sequentialTuning: number | null;
  /** The confidence sequence's two-sided error rate; 0.05 unless given (the guard splits it). */
  sequentialAlpha?: number;
  /** A ratio metric: the summaries hold numerator (y) and denominator (x) per user. */
  ratio: boolean;
}

/** Runs the chosen test on one (control, treatment) pair. */
export function testPair(method: Method, arms: PairArms, options: PairOptions): PairOutcome {
  const sequential =
    options.sequentialTuning === null
      ? null
      : { tuning: options.sequentialTuning, alpha: options.sequentialAlpha ?? 0.05 };
  const c = arms.control ?? EMPTY_COVARIATE_SUMMARY;
  const t = arms.treatment ?? EMPTY_COVARIATE_SUMMARY;
  if (arms.quantile) {
    const { control, treatment, level } = arms.quantile;
    const r = quantileTest(control, treatment, level);
    const calls = { control: r.calls_control, treatment: r.calls_treatment };
    const values = { control: r.quantile_control, treatment: r.quantile_treatment };
    return { ...estimated(r, r.estimate, sequential), values, calls };
  }
  if (options.ratio) {
    const r = ratioTest(c, t);
    const values = { control: r.ratio_control, treatment: r.ratio_treatment };
    return { ...estimated(r, r.estimate, sequential), values, calls: null };
  }
  if (method === 'welch_t' || method === 'two_proportion_z') {
    const cuped = method === 'welch_t' && options.cuped ? { control: c, treatment: t } : null;
    const r = testSummaryPair({
      method,
      control: metricSummary(c),
      treatment: metricSummary(t),
      cuped,
      sequential,
    } as Parameters<typeof testSummaryPair>[0]);
    const { cuped: report, unadjusted, sequential: seq, ...core } = r;
    return {
      ...stripExtras(core),
      permutations_used: 0,
      sample_cap_used: false,
      cuped: report,
      unadjusted: unadjusted && pickUnadjusted(unadjusted),
      sequential: seq,
      values: null,
      calls: null,
    };
  }
  return sampleTest(method, arms, options, sequential);
}

/** A test on an estimate of its own (quantile, ratio), with its confidence sequence on request. */
function estimated(
  r: TwoSampleResult,
  estimate: Estimate | null,
  sequential: { tuning: number; alpha: number } | null,
): Omit<PairOutcome, 'values' | 'calls'> {
  return {
    ...stripExtras(r),
    permutations_used: 0,
    sample_cap_used: false,
    cuped: null,
    unadjusted: null,
    sequential: estimate && sequential ? confidenceSequence(estimate, sequential) : null,
  };
}

/** Mann–Whitney or permutation on the capped samples; effect and CI Welch's from full arms. */
function sampleTest(
  method: 'mann_whitney' | 'permutation',
  arms: PairArms,
  options: PairOptions,
  sequential: { tuning: number; alpha: number } | null,
): PairOutcome {
  const samples = arms.samples ?? { control: [], treatment: [], capUsed: false };
  const full = { c: metricSummary(arms.control), t: metricSummary(arms.treatment) };
  const base =
    method === 'mann_whitney'
      ? { ...mannWhitneyTest(samples.control, samples.treatment), permutations_used: 0 }
      : permutationTest(samples.control, samples.treatment, {
          maxPermutations: options.plan.max_permutations,
          maxSamplePerArm: options.plan.max_sample_per_arm,
          seed: PERMUTATION_SEED,
        });
  const welch = welchTest(full.c, full.t);
  const fromFullArms =
    samples.capUsed && base.ok && welch.ok
      ? { effect: welch.effect, ci_low: welch.ci_low, ci_high: welch.ci_high, lift: welch.lift }
      : {};
  const estimate = sequential ? welchEstimate(full.c, full.t) : null;
  return {
    ...stripExtras(base),
    ...fromFullArms,
    n_control: full.c.n,
    n_treatment: full.t.n,
    permutations_used: base.permutations_used,
    sample_cap_used: samples.capUsed,
    cuped: null,
    unadjusted: null,
    sequential: estimate && sequential ? confidenceSequence(estimate, sequential) : null,
    values: null,
    calls: null,
  };
}

/** The fields of TwoSampleResult alone (tests add df, u, z, exact: not MetricResult fields). */
function stripExtras(r: TwoSampleResult): TwoSampleResult {
  const { test, ok, reason, statistic, p_value, effect, ci_low, ci_high, lift } = r;
  return {
    test,
    ok,
    reason,
    statistic,
    p_value,
    effect,
    ci_low,
    ci_high,
    lift,
    n_control: r.n_control,
    n_treatment: r.n_treatment,
  };
}

function pickUnadjusted(u: TwoSampleResult): NonNullable<MetricResult['unadjusted']> {
  return {
    statistic: u.statistic,
    p_value: u.p_value,
    effect: u.effect,
    ci_low: u.ci_low,
    ci_high: u.ci_high,
  };
}

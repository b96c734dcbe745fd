import { studentTTwoSidedP } from './distributions.ts';
import { type Moments, momentsFromSummary, welchCore } from './moments.ts';
import { degenerate, liftOf, type StatReason, type TwoSampleResult } from './result.ts';
import type { Estimate } from './sequential.ts';
import { type ArmSummary, meanDifference } from './summary.ts';

export interface WelchResult extends TwoSampleResult<'welch_t'> {
  /** Welch–Satterthwaite degrees of freedom (0 when not computable). */
  df: number;
}

/**
 * A degenerate Welch result of a metric that reports fields of its own (`extra`) and an
 * estimate for the confidence sequence, which a degenerate result has none of.
 */
export function degenerateWelch<E extends object>(
  reason: StatReason,
  nControl: number,
  nTreatment: number,
  means: { control: number; treatment: number },
  extra: E,
): WelchResult & E & { estimate: null } {
  return {
    ...degenerate('welch_t', reason, nControl, nTreatment, means),
    df: 0,
    ...extra,
    estimate: null,
  };
}

/**
 * Welch's unequal-variance t-test of treatment − control over mergeable summaries
 * (scipy.stats.ttest_ind(treatment, control, equal_var=False)), with the 95% t-interval
 * of the difference in means on the Welch–Satterthwaite df.
 */
export function welchTest(control: ArmSummary, treatment: ArmSummary): WelchResult {
  const c = momentsFromSummary(control);
  const t = momentsFromSummary(treatment);
  if (typeof c === 'string' || typeof t === 'string') {
    return { ...degenerate('welch_t', 'non_finite', control.n, treatment.n), df: 0 };
  }
  return welchFromMoments(c, t, meanDifference(control, treatment));
}

export function welchFromMoments(c: Moments, t: Moments, diff = t.mean - c.mean): WelchResult {
  const core = welchCore(c, t, diff);
  if (typeof core === 'string') {
    const means = { control: c.mean, treatment: t.mean };
    return { ...degenerate('welch_t', core, c.n, t.n, means), df: 0 };
  }
  return {
    test: 'welch_t',
    ok: true,
    reason: null,
    statistic: core.t,
    p_value: studentTTwoSidedP(core.t, core.df),
    effect: core.diff,
    ci_low: core.ciLow,
    ci_high: core.ciHigh,
    lift: liftOf(core.diff, c.mean),
    n_control: c.n,
    n_treatment: t.n,
    df: core.df,
  };
}

/**
 * The difference in means and its variance s²_C/n_C + s²_T/n_T, for the confidence sequence;
 * null where Welch itself is degenerate (an empty or one-user arm, zero or non-finite spread).
 */
export function welchEstimate(control: ArmSummary, treatment: ArmSummary): Estimate | null {
  const c = momentsFromSummary(control);
  const t = momentsFromSummary(treatment);
  if (typeof c === 'string' || typeof t === 'string') return null;
  return estimateFromMoments(c, t, meanDifference(control, treatment));
}

export function estimateFromMoments(c: Moments, t: Moments, diff: number): Estimate | null {
  if (typeof welchCore(c, t, diff) === 'string') return null;
  return { effect: diff, variance: (c.sd * c.sd) / c.n + (t.sd * t.sd) / t.n, n: c.n + t.n };
}

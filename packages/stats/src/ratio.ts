import { type CovariateSummary, covariateMoments } from './covariate-summary.ts';
import type { Moments } from './moments.ts';
import type { StatReason } from './result.ts';
import type { Estimate } from './sequential.ts';
import {
  degenerateWelch,
  estimateFromMoments,
  type WelchResult,
  welchFromMoments,
} from './welch.ts';

export interface RatioResult extends WelchResult {
  /** The effect and its variance, for the confidence sequence; null when degenerate. */
  estimate: Estimate | null;
  /** Σ numerator / Σ denominator over each arm's users. */
  ratio_control: number;
  ratio_treatment: number;
}

/**
 * The difference of two arms' ratios Σm/Σd, as GrowthBook's gbstats 0.8.0 tests it
 * (RatioStatistic + TwoSidedTTest, absolute). Each summary holds, per exposed user, y = the
 * numerator and x = the denominator (a user whose denominator is 0 still counts in n). The
 * per-user variance is the delta method's
 *   Var(m)/d̄² − 2·Cov(m, d)·m̄/d̄³ + m̄²·Var(d)/d̄⁴   (sample moments, n − 1),
 * and Welch's t runs on it. gbstats' guards, in its order: an arm whose denominators sum to
 * 0 has no ratio; a zero control ratio has no lift; an arm without spread has no test.
 */
export function ratioTest(control: CovariateSummary, treatment: CovariateSummary): RatioResult {
  const c = covariateMoments(control);
  const t = covariateMoments(treatment);
  const ratio = (m: typeof c) => (m.meanX === 0 ? 0 : m.meanY / m.meanX);
  const extra = { ratio_control: ratio(c), ratio_treatment: ratio(t) };
  const means = { control: extra.ratio_control, treatment: extra.ratio_treatment };
  const fail = (reason: StatReason): RatioResult => degenerateWelch(reason, c.n, t.n, means, extra);
  if (c.n === 0 || t.n === 0) return fail('empty_arm');
  if (c.n < 2 || t.n < 2) return fail('too_few_users');
  if (c.meanX === 0 || t.meanX === 0) return fail('zero_denominator');
  if (extra.ratio_control === 0) return fail('zero_baseline');
  const mc = ratioMoments(c);
  const mt = ratioMoments(t);
  if (mc === null || mt === null) return fail('zero_variance');
  const result = welchFromMoments(mc, mt);
  if (!result.ok) return fail(result.reason ?? 'non_finite');
  return { ...result, ...extra, estimate: estimateFromMoments(mc, mt, result.effect) };
}

function ratioMoments(m: ReturnType<typeof covariateMoments>): Moments | null {
  const d = m.meanX;
  const r = m.meanY / d;
  const variance =
    m.m2Y / (m.n - 1) / d ** 2 -
    (2 * (m.cXY / (m.n - 1)) * m.meanY) / d ** 3 +
    (m.meanY ** 2 * (m.m2X / (m.n - 1))) / d ** 4;
  if (!(variance > 0) || !Number.isFinite(r)) return null;
  return { n: m.n, mean: r, sd: Math.sqrt(variance) };
}

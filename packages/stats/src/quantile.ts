import { type CovariateSummary, covariateMoments } from './covariate-summary.ts';
import { Z_975 } from './distributions.ts';
import type { Moments } from './moments.ts';
import { QUANTILE_SCALE } from './quantile-ranks.ts';
import type { StatReason } from './result.ts';
import type { Estimate } from './sequential.ts';
import {
  degenerateWelch,
  estimateFromMoments,
  type WelchResult,
  welchFromMoments,
} from './welch.ts';

/**
 * One arm of a quantile metric, as SQL hands it over: the order statistics of the arm's
 * sorted call values at the ranks `quantileRanks` gave, and per exposed user (users without
 * calls included, with zeros) y = the user's calls at or below the estimate, x = the user's
 * calls. The estimate is event level; the variance is clustered by user.
 */
export interface QuantileArm {
  /** The arm's model calls: the n of the order statistics. */
  calls: number;
  estimate: number;
  lower: number;
  upper: number;
  clusters: CovariateSummary;
}

export interface QuantileResult extends WelchResult {
  /** The effect and its variance, for the confidence sequence; null when degenerate. */
  estimate: Estimate | null;
  /** n_control and n_treatment count users (clusters); these count the calls. */
  calls_control: number;
  calls_treatment: number;
  quantile_control: number;
  quantile_treatment: number;
}

/**
 * The difference of two arms' q-quantiles, as GrowthBook's gbstats 0.8.0 tests it
 * (QuantileClusteredStatistic + TwoSidedTTest, absolute): each arm's variance is the
 * order-statistic interval's, (n − 1)·((upper − lower)/(2·z))², scaled by the user-clustered
 * variance of the share of calls at or below the estimate over its i.i.d. value q(1 − q)/n;
 * Welch's t on those with the calls as n. gbstats' guards come first, in its order: a zero
 * control quantile (no lift to report), then an arm too small for its bounds.
 */
export function quantileTest(
  control: QuantileArm,
  treatment: QuantileArm,
  level: number,
): QuantileResult {
  const extra = {
    calls_control: control.calls,
    calls_treatment: treatment.calls,
    quantile_control: control.estimate,
    quantile_treatment: treatment.estimate,
  };
  const users = { c: control.clusters.n, t: treatment.clusters.n };
  const means = { control: control.estimate, treatment: treatment.estimate };
  const fail = (reason: StatReason): QuantileResult =>
    degenerateWelch(reason, users.c, users.t, means, extra);
  if (control.calls === 0 || treatment.calls === 0) return fail('empty_arm');
  if (control.estimate === 0) return fail('zero_baseline');
  const c = quantileMoments(control, level);
  const t = quantileMoments(treatment, level);
  if (c === null || t === null) return fail('zero_variance');
  const result = welchFromMoments(c, t);
  if (!result.ok) return fail(result.reason ?? 'non_finite');
  return {
    ...result,
    n_control: users.c,
    n_treatment: users.t,
    ...extra,
    estimate: estimateFromMoments(c, t, result.effect),
  };
}

/** The arm as Moments (n = calls, mean = the estimate), or null where gbstats sees no variance. */
function quantileMoments(arm: QuantileArm, level: number): Moments | null {
  const nu = level / QUANTILE_SCALE;
  const n = arm.calls;
  const z2 = Z_975 * Z_975;
  // Bounds that would fall outside the sample: x(⌈nq ± z·s⌉) does not exist.
  if (n <= (z2 * nu) / (1 - nu) || n <= (z2 * (1 - nu)) / nu) return null;
  const initial = clusteredVariance(arm, nu);
  if (initial <= 0 && n < 1000) return null;
  const variance = n < 100 ? initial : Math.max(initial, 1e-5);
  return { n, mean: arm.estimate, sd: Math.sqrt(variance) };
}

function clusteredVariance(arm: QuantileArm, nu: number): number {
  const n = arm.calls;
  const m = covariateMoments(arm.clusters);
  const k = m.n;
  if (n <= 1 || k <= 1 || m.meanX <= 0) return 0;
  const iid = (n - 1) * ((arm.upper - arm.lower) / (2 * Z_975)) ** 2;
  const shareIid = (nu * (1 - nu)) / n;
  // Delta method for the ratio Σ(calls ≤ estimate)/Σ calls over users (sample moments).
  const varS = m.m2Y / (k - 1);
  const varN = m.m2X / (k - 1);
  const cov = m.cXY / (k - 1);
  const shareClustered =
    (varS - (2 * m.meanY * cov) / m.meanX + (m.meanY ** 2 * varN) / m.meanX ** 2) /
    (k * m.meanX ** 2);
  return (iid * shareClustered) / shareIid;
}

import { normalTwoSidedP, Z_975 } from './distributions.ts';
import { degenerate, liftOf, type TwoSampleResult } from './result.ts';
import type { Estimate } from './sequential.ts';
import type { ArmSummary } from './summary.ts';

/** One arm of a binary metric: users and users with the outcome (`proportionArm` reads it off a summary of 0/1 values). */
export interface ProportionArm {
  n: number;
  successes: number;
}

export type TwoProportionResult = TwoSampleResult<'two_proportion_z'>;

/**
 * Pooled two-proportion z-test of p_T − p_C
 * (statsmodels.stats.proportion.proportions_ztest([x_T, x_C], [n_T, n_C])), with the
 * unpooled Wald 95% CI of the difference (confint_proportions_2indep(method='wald')).
 * The test pools because H0 says the rates are equal; the interval does not, because it
 * describes the rates as observed.
 */
export function twoProportionZTest(
  control: ProportionArm,
  treatment: ProportionArm,
): TwoProportionResult {
  if (!validArm(control) || !validArm(treatment)) {
    return degenerate('two_proportion_z', 'invalid_input', control.n, treatment.n);
  }
  const nC = control.n;
  const nT = treatment.n;
  if (nC === 0 || nT === 0) return degenerate('two_proportion_z', 'empty_arm', nC, nT);
  const pC = control.successes / nC;
  const pT = treatment.successes / nT;
  const means = { control: pC, treatment: pT };
  const pooled = (control.successes + treatment.successes) / (nC + nT);
  // Nobody or everybody converted: the pooled variance is 0 and there is nothing to test.
  if (pooled === 0 || pooled === 1)
    return degenerate('two_proportion_z', 'zero_variance', nC, nT, means);
  const effect = pT - pC;
  const z = effect / Math.sqrt(pooled * (1 - pooled) * (1 / nC + 1 / nT));
  const half = Z_975 * Math.sqrt((pC * (1 - pC)) / nC + (pT * (1 - pT)) / nT);
  return {
    test: 'two_proportion_z',
    ok: true,
    reason: null,
    statistic: z,
    p_value: normalTwoSidedP(z),
    effect,
    ci_low: effect - half,
    ci_high: effect + half,
    lift: liftOf(effect, pC),
    n_control: nC,
    n_treatment: nT,
  };
}

function validArm(a: ProportionArm): boolean {
  return (
    Number.isSafeInteger(a.n) &&
    Number.isSafeInteger(a.successes) &&
    a.n >= 0 &&
    a.successes >= 0 &&
    a.successes <= a.n
  );
}

/** The arm of a 0/1 metric from its summary: successes = Σx = n·shift + Σ(x − shift), rounded. */
export function proportionArm(summary: ArmSummary): ProportionArm {
  const successes = Math.round(summary.n * (summary.shift ?? 0) + summary.sum);
  return { n: summary.n, successes: Object.is(successes, -0) ? 0 : successes };
}

/**
 * p_T − p_C with its unpooled variance p_C(1 − p_C)/n_C + p_T(1 − p_T)/n_T (gbstats'
 * ProportionStatistic), for the confidence sequence; null where the z-test is degenerate.
 */
export function proportionEstimate(
  control: ProportionArm,
  treatment: ProportionArm,
): Estimate | null {
  if (!twoProportionZTest(control, treatment).ok) return null;
  const pC = control.successes / control.n;
  const pT = treatment.successes / treatment.n;
  const variance = (pC * (1 - pC)) / control.n + (pT * (1 - pT)) / treatment.n;
  return { effect: pT - pC, variance, n: control.n + treatment.n };
}

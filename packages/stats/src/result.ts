/**
 * Why a result is degenerate. Expected outcomes are values, never throws: a result with a
 * reason has ok = false and p_value = 1 (except `observed_in_zero_share`, where p = 0 is the
 * true answer), statistic 0, and an effect/CI that is the best finite description available.
 */
export type StatReason =
  | 'empty_arm'
  | 'too_few_users'
  | 'zero_variance'
  | 'all_ties'
  | 'non_finite'
  | 'invalid_input'
  | 'no_observations'
  | 'too_few_categories'
  | 'observed_in_zero_share'
  | 'zero_denominator'
  | 'zero_baseline';

export type TestName = 'welch_t' | 'mann_whitney' | 'permutation' | 'two_proportion_z';

/** Fields every two-arm test reports; snake_case because they go straight into MetricResult JSON. */
export interface TwoSampleResult<T extends TestName = TestName> {
  test: T;
  ok: boolean;
  reason: StatReason | null;
  statistic: number;
  p_value: number;
  /** treatment − control (means, or proportions). */
  effect: number;
  ci_low: number;
  ci_high: number;
  /** effect / control mean; null when the control mean is 0 or the ratio is not finite. */
  lift: number | null;
  n_control: number;
  n_treatment: number;
}

export function liftOf(effect: number, controlMean: number): number | null {
  if (controlMean === 0) return null;
  const lift = effect / controlMean;
  return Number.isFinite(lift) ? lift : null;
}

/** A degenerate two-arm result: p = 1, statistic 0, CI collapsed onto the (finite) effect. */
export function degenerate<T extends TestName>(
  test: T,
  reason: StatReason,
  nControl: number,
  nTreatment: number,
  means?: { control: number; treatment: number },
): TwoSampleResult<T> {
  let effect = 0;
  let lift: number | null = null;
  if (means && nControl > 0 && nTreatment > 0) {
    const d = means.treatment - means.control;
    if (Number.isFinite(d)) {
      effect = d;
      lift = liftOf(d, means.control);
    }
  }
  return {
    test,
    ok: false,
    reason,
    statistic: 0,
    p_value: 1,
    effect,
    ci_low: effect,
    ci_high: effect,
    lift,
    n_control: finiteCount(nControl),
    n_treatment: finiteCount(nTreatment),
  };
}

export function finiteCount(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}

import { type Moments, welchCore } from './moments.ts';
import { liftOf } from './result.ts';

/**
 * The difference in means with Welch's 95% CI, as the rank and resampling tests report it:
 * they decide on their own statistic, but a decision is read in the metric's own units. When
 * Welch has no interval (an arm without spread), the interval collapses onto the effect.
 */
export function meanDifference(control: Moments, treatment: Moments) {
  const effect = treatment.mean - control.mean;
  const core = welchCore(control, treatment);
  return {
    effect,
    ci_low: typeof core === 'string' ? effect : core.ciLow,
    ci_high: typeof core === 'string' ? effect : core.ciHigh,
    lift: liftOf(effect, control.mean),
    n_control: control.n,
    n_treatment: treatment.n,
  };
}

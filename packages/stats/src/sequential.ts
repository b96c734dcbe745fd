/**
 * An estimate that is asymptotically normal: the difference treatment − control, the
 * variance of that difference (e.g. s²_T/n_T + s²_C/n_C), and the users behind it.
 */
export interface Estimate {
  effect: number;
  variance: number;
  /** Users in both arms together: the "time" of the confidence sequence. */
  n: number;
}

export interface SequentialOptions {
  /** Two-sided error rate of the whole sequence; 0.05 unless given. */
  alpha?: number;
  /**
   * The total sample size (both arms) at which the sequence is tightest: GrowthBook's
   * `sequential_tuning_parameter`, 5000 unless given. Set it near the users a run is expected
   * to end with; every other N pays a little width for that choice, none pays validity.
   */
  tuning?: number;
}

/** GrowthBook's default for `sequential_tuning_parameter`. */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;

export interface SequentialResult {
  /** Always-valid p-value: the smallest α whose sequence excludes 0 at this N. */
  p_value: number;
  ci_low: number;
  ci_high: number;
}

/**
 * The asymptotic confidence sequence of Waudby-Smith et al., "Time-uniform central limit
 * theory and asymptotic confidence sequences" (arXiv 2103.06476, eq. 9, with ρ from eq. 161),
 * the normal-mixture boundary of Howard et al. (2021) applied to a CLT estimate: with
 * s² = N·variance,
 *   half-width = s·√( 2(Nρ² + 1)/(N²ρ²) · ln(√(Nρ² + 1)/α) ),
 *   ρ² = (−2 ln α + ln(1 − 2 ln α)) / tuning,
 * and the p-value the inverse of the mixture e-value (eq. 155), capped at 1:
 *   p = √(Nρ² + 1) · exp(−ρ²·N·effect²/variance / (2(Nρ² + 1))).
 * Exactly GrowthBook's SequentialTwoSidedTTest (gbstats 0.8.0) on the absolute difference.
 * An interval that holds at every N at once may be looked at after every user: stopping
 * when it first excludes 0 keeps the error rate at α.
 */
export function confidenceSequence(
  estimate: Estimate,
  options: SequentialOptions = {},
): SequentialResult {
  const alpha = options.alpha ?? 0.05;
  const tuning = options.tuning ?? DEFAULT_SEQUENTIAL_TUNING;
  const { effect, variance, n } = estimate;
  const collapsed = { p_value: 1, ci_low: finite(effect), ci_high: finite(effect) };
  if (!(alpha > 0 && alpha < 1) || !(tuning > 0)) return collapsed;
  if (!(n > 0) || !(variance > 0) || !Number.isFinite(variance) || !Number.isFinite(effect)) {
    return collapsed;
  }
  const logAlpha = Math.log(alpha);
  const rho2 = (-2 * logAlpha + Math.log(1 - 2 * logAlpha)) / tuning;
  const grown = n * rho2 + 1;
  // (2(Nρ²+1)/(N²ρ²))·ln(√(Nρ²+1)/α), times s² = N·variance.
  const half = Math.sqrt(
    ((variance * 2 * grown) / (n * rho2)) * (0.5 * Math.log(grown) - logAlpha),
  );
  // ln e-value = ρ²·z²·N... written with z² = effect²/variance to keep N·effect² from overflowing.
  const z2 = (effect / Math.sqrt(variance)) ** 2;
  const logE = (rho2 * n * z2) / (2 * grown) - 0.5 * Math.log(grown);
  const pValue = logE <= 0 ? 1 : Math.exp(-logE);
  if (!Number.isFinite(half)) return collapsed;
  return { p_value: Math.min(1, pValue), ci_low: effect - half, ci_high: effect + half };
}

function finite(v: number): number {
  return Number.isFinite(v) ? v : 0;
}

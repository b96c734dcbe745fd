/**
 * The mergeable per-arm summary the moment-based tests run on: the number of users and the
 * sums of (x − shift) and (x − shift)². `shift` absent means 0, i.e. the raw sums a plain
 * `SUM(v), SUM(v * v)` returns.
 *
 * Why a shift: the variance is sumSquares − sum²/n, and with raw sums of values like
 * 1e9 ± 0.001 both terms are ~1e18·n while their difference is ~1e-6·n, far below the
 * rounding of either. Sums around a shift near the mean keep every digit of the spread:
 * the cancellation only costs what |shift − mean| is in standard deviations. `summarize`
 * centres on the mean; SQL should shift by any value near it (README, "The SQL contract").
 */
export interface ArmSummary {
  n: number;
  /** Σ (x − shift). */
  sum: number;
  /** Σ (x − shift)². */
  sumSquares: number;
  /** Any value near the arm's mean; 0 when absent. */
  shift?: number;
}

export const EMPTY_SUMMARY: ArmSummary = Object.freeze({ n: 0, sum: 0, sumSquares: 0, shift: 0 });

/** The arm as n, mean and the centred sum of squares M2 = Σ (x − mean)². */
export interface Centred {
  n: number;
  mean: number;
  m2: number;
}

/**
 * A two-pass summary centred on the arm's mean (numpy's var does the same), with
 * Neumaier-compensated sums so that long arms do not accumulate rounding either.
 */
export function summarize(values: readonly number[]): ArmSummary {
  const n = values.length;
  if (n === 0) return { ...EMPTY_SUMMARY };
  const shift = centreOf(values);
  if (!Number.isFinite(shift))
    return { n, sum: shift, sumSquares: Number.POSITIVE_INFINITY, shift: 0 };
  const sum = new CompensatedSum();
  const sumSquares = new CompensatedSum();
  for (const v of values) {
    const d = v - shift;
    sum.add(d);
    sumSquares.add(d * d);
  }
  return { n, sum: sum.value(), sumSquares: sumSquares.value(), shift };
}

/**
 * The compensated mean, or the common value when all are equal: identical values have
 * exactly zero spread, and their rounded mean could differ from them and invent some.
 * Non-finite when a value is.
 */
export function centreOf(values: readonly number[]): number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  const total = new CompensatedSum();
  for (const v of values) {
    total.add(v);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min === max ? min : total.value() / values.length;
}

/** n, mean and M2 of a summary; M2 below the rounding bound of sumSquares is 0. */
export function centred(s: ArmSummary): Centred {
  const shift = s.shift ?? 0;
  if (s.n === 0) return { n: 0, mean: 0, m2: 0 };
  const offset = s.sum / s.n;
  const raw = s.sumSquares - s.sum * offset;
  // What is left of a zero spread after rounding sumSquares: treat as exactly zero, so two
  // identical constant arms never look "significant".
  const noise = 4 * s.n * Number.EPSILON * Math.abs(s.sumSquares);
  return { n: s.n, mean: shift + offset, m2: raw <= noise ? 0 : raw };
}

/**
 * Summaries of disjoint sets of users combined, by Chan et al.'s pairwise update
 * M2 = M2a + M2b + δ²·na·nb/n in the frame of the first part's shift (so δ is formed from
 * small offsets, not from two large means). The result is centred on the combined mean.
 */
export function mergeSummaries(...parts: readonly ArmSummary[]): ArmSummary {
  const nonEmpty = parts.filter((p) => p.n > 0);
  const first = nonEmpty[0];
  if (!first) return { ...EMPTY_SUMMARY };
  const frame = first.shift ?? 0;
  let n = 0;
  let offset = 0;
  let m2 = 0;
  for (const p of nonEmpty) {
    const c = centred(p);
    const pOffset = (p.shift ?? 0) - frame + p.sum / p.n;
    const total = n + p.n;
    const delta = pOffset - offset;
    offset += (delta * p.n) / total;
    m2 += c.m2 + ((delta * delta * n) / total) * p.n;
    n = total;
  }
  return recentre(n, frame, offset, m2);
}

/**
 * {n, mean = frame + offset, M2} as a summary whose shift is the mean rounded to a double
 * and whose sum carries the rounding remainder, so no digit of the mean is dropped.
 */
export function recentre(n: number, frame: number, offset: number, m2: number): ArmSummary {
  const shift = frame + offset;
  if (!Number.isFinite(shift)) return { n, sum: n * offset, sumSquares: m2, shift: frame };
  const remainder = offset - (shift - frame);
  return { n, sum: n * remainder, sumSquares: m2 + n * remainder * remainder, shift };
}

/**
 * mean(treatment) − mean(control) formed from the shifts' difference (exact when they are
 * within a factor of two) plus the small offsets, so that two means of 1e9 whose difference
 * is 4e-4 do not lose the difference to the rounding of each mean.
 */
export function meanDifference(control: ArmSummary, treatment: ArmSummary): number {
  if (control.n === 0 || treatment.n === 0) return 0;
  const shifts = (treatment.shift ?? 0) - (control.shift ?? 0);
  return shifts + (treatment.sum / treatment.n - control.sum / control.n);
}

/** Neumaier's compensated summation: the running error term recovers what each add rounds off. */
export class CompensatedSum {
  private sum = 0;
  private compensation = 0;

  add(v: number): void {
    const t = this.sum + v;
    if (Math.abs(this.sum) >= Math.abs(v)) this.compensation += this.sum - t + v;
    else this.compensation += v - t + this.sum;
    this.sum = t;
  }

  value(): number {
    const v = this.sum + this.compensation;
    // An overflowing running sum leaves NaN in the compensation; the plain sum says why.
    return Number.isNaN(v) ? this.sum : v;
  }
}

import { binomTestHalf } from './binomtest.ts';
import { studentTQuantile, studentTTwoSidedP, Z_80, Z_975 } from './distributions.ts';

export type Direction = 'increase' | 'decrease';
export type PairedTestName = 'mcnemar_exact' | 'paired_t';

/** One item's paired values: the baseline's y(c,i) and the treatment's y(t,i). */
export interface PairedItem {
  id: string;
  baseline: number;
  treatment: number;
}

/** A paired comparison before the run-wide FDR step (see offline-evaluation.ts). */
export interface PairedComparison {
  n_items: number;
  mean_baseline: number | null;
  mean_treatment: number | null;
  mean_difference: number | null;
  relative_difference: number | null;
  ci_low: number | null;
  ci_high: number | null;
  test: PairedTestName;
  p_value: number | null;
  improved_items: number;
  regressed_items: number;
  tied_items: number;
  mdd: number | null;
  items_needed: number | null;
}

/**
 * A comparison's figures when there are none to give: no items, or figures that overflow. The
 * counts (items, improved, regressed, tied) and the test's name stay.
 */
export const NO_FIGURES = {
  mean_baseline: null,
  mean_treatment: null,
  mean_difference: null,
  relative_difference: null,
  ci_low: null,
  ci_high: null,
  p_value: null,
  mdd: null,
  items_needed: null,
} as const satisfies Partial<PairedComparison>;

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Sample standard deviation (ddof 1), two-pass; needs at least two values. */
export function sampleSd(xs: readonly number[]): number {
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return Math.sqrt(ss / (xs.length - 1));
}

const isBinary = (x: number) => x === 0 || x === 1;

/** Items better than 0 by the direction, worse, or exactly 0. */
function itemCounts(d: readonly number[], direction: Direction) {
  const sign = direction === 'increase' ? 1 : -1;
  let improved = 0;
  let regressed = 0;
  for (const x of d) {
    if (x * sign > 0) improved++;
    else if (x * sign < 0) regressed++;
  }
  return {
    improved_items: improved,
    regressed_items: regressed,
    tied_items: d.length - improved - regressed,
  };
}

/** The two-sided p-value: exact McNemar on binary items, else the paired t-test (n ≥ 2). */
function pairedP(binary: boolean, d: readonly number[], md: number, sd: number, n: number) {
  if (binary) {
    const b = d.filter((x) => x === 1).length;
    const c = d.filter((x) => x === -1).length;
    return b + c === 0 ? 1 : binomTestHalf(b, b + c);
  }
  if (sd === 0) return md === 0 ? 1 : 0;
  return studentTTwoSidedP(md / (sd / Math.sqrt(n)), n - 1);
}

/** Values beyond this are divided by a power of two first: squares and sums of them overflow. */
const SCALE_ABOVE = 2 ** 400;

/**
 * A power of two s with every |value| / s below 2, or 1 when the values are small enough to
 * use as they are. Dividing by a power of two is exact, so the figures formed from the scaled
 * values and multiplied back by s are the unscaled ones wherever those do not overflow.
 */
function scaleOf(items: readonly PairedItem[]): number {
  let max = 0;
  for (const i of items) max = Math.max(max, Math.abs(i.baseline), Math.abs(i.treatment));
  if (!(max > SCALE_ABOVE) || !Number.isFinite(max)) return 1;
  return 2 ** Math.min(1023, Math.floor(Math.log2(max)));
}

/**
 * Treatment against baseline over the items where both have a value, d_i = y(t,i) − y(c,i):
 * - mean_difference = mean(d); relative_difference = mean(d) ÷ mean(y(c)), null when that is 0;
 * - ci = mean(d) ± t(0.975, n−1) · sd(d) ÷ √n (sd at ddof 1; studentTQuantile, exact to double
 *   precision);
 * - `mcnemar_exact` when every value is 0 or 1 and the run has one repeat: with b and c the items
 *   with d = +1 and d = −1, p = binomtest(b, b+c, 0.5) two-sided, 1 when b + c = 0;
 *   otherwise `paired_t` (scipy's ttest_rel): t = mean(d) ÷ (sd(d) ÷ √n) on n − 1 df, and when
 *   sd(d) = 0, p = 1 if mean(d) = 0 and 0 otherwise;
 * - with n < 2 the p-value, the interval, mdd and items_needed are null;
 * - improved / regressed / tied: d better than 0 by the direction, worse, or exactly 0;
 * - mdd = (z(0.975) + z(0.8)) · sd(d) ÷ √n; items_needed = ⌈((z(0.975) + z(0.8)) · sd(d) ÷
 *   |mean(d)|)²⌉, null when mean(d) = 0.
 * Values beyond 2^400 are divided by a power of two first, so 1e154 or 1e300 gives finite
 * figures where sd(d)² would overflow; a figure that overflows even so is ±Infinity.
 */
export function pairedComparison(
  items: readonly PairedItem[],
  direction: Direction,
  repeats: number,
): PairedComparison {
  const scale = scaleOf(items);
  if (scale === 1) return pairedScaled(items, direction, repeats, 1);
  const scaled = items.map((i) => ({
    id: i.id,
    baseline: i.baseline / scale,
    treatment: i.treatment / scale,
  }));
  return pairedScaled(scaled, direction, repeats, scale);
}

/**
 * pairedComparison over values divided by `scale`: the means, the interval and mdd are
 * multiplied back, the scale-free figures (p, relative difference, items needed) are not.
 */
function pairedScaled(
  items: readonly PairedItem[],
  direction: Direction,
  repeats: number,
  scale: number,
): PairedComparison {
  const n = items.length;
  const d = items.map((i) => i.treatment - i.baseline);
  const binary = repeats === 1 && items.every((i) => isBinary(i.baseline) && isBinary(i.treatment));
  const test: PairedTestName = binary ? 'mcnemar_exact' : 'paired_t';
  const base = { n_items: n, test, ...itemCounts(d, direction) };
  if (n === 0) return { ...base, ...NO_FIGURES };
  const meanBaseline = mean(items.map((i) => i.baseline));
  const meanTreatment = mean(items.map((i) => i.treatment));
  const md = mean(d);
  const relative = meanBaseline === 0 ? null : md / meanBaseline;
  const common = {
    ...base,
    mean_baseline: meanBaseline * scale,
    mean_treatment: meanTreatment * scale,
    mean_difference: md * scale,
    relative_difference: relative,
  };
  if (n < 2) {
    return { ...common, ci_low: null, ci_high: null, p_value: null, mdd: null, items_needed: null };
  }
  const sd = sampleSd(d);
  const se = sd / Math.sqrt(n);
  const half = studentTQuantile(0.975, n - 1) * se;
  const p = pairedP(binary, d, md, sd, n);
  const zz = Z_975 + Z_80;
  return {
    ...common,
    ci_low: (md - half) * scale,
    ci_high: (md + half) * scale,
    p_value: p,
    mdd: zz * se * scale,
    items_needed: md === 0 ? null : Math.ceil(((zz * sd) / Math.abs(md)) ** 2),
  };
}

import { tQuantile975 } from './distributions.ts';
import type { StatReason } from './result.ts';
import { type ArmSummary, centred } from './summary.ts';

/** Mean and standard deviation (ddof = 1) of one arm; carried as sd so that it never overflows as a variance would. */
export interface Moments {
  n: number;
  mean: number;
  sd: number;
}

export interface WelchCore {
  diff: number;
  se: number;
  t: number;
  df: number;
  ciLow: number;
  ciHigh: number;
}

/**
 * Moments from a (possibly shifted) summary. Rounding noise in a spread that is really zero
 * is already removed by `centred`.
 */
export function momentsFromSummary(s: ArmSummary): Moments | StatReason {
  const shift = s.shift ?? 0;
  if (
    !Number.isFinite(s.n) ||
    s.n < 0 ||
    !Number.isFinite(s.sum) ||
    !Number.isFinite(s.sumSquares) ||
    !Number.isFinite(shift)
  )
    return 'non_finite';
  const c = centred(s);
  if (s.n < 2) return { n: s.n, mean: c.mean, sd: 0 };
  const sd = Math.sqrt(c.m2 / (s.n - 1));
  return Number.isFinite(sd) && Number.isFinite(c.mean)
    ? { n: s.n, mean: c.mean, sd }
    : 'non_finite';
}

/**
 * Two-pass moments of a sample (what numpy does). Values beyond 2^500 are scaled by an exact
 * power of two first, so 1e300-sized data keep a finite mean and sd.
 */
export function momentsFromSample(values: ArrayLike<number>): Moments | StatReason {
  const n = values.length;
  if (n === 0) return { n: 0, mean: 0, sd: 0 };
  let maxAbs = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    if (!Number.isFinite(v)) return 'non_finite';
    maxAbs = Math.max(maxAbs, Math.abs(v));
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const scale = maxAbs > 2 ** 500 ? 2 ** Math.ceil(Math.log2(maxAbs)) : 1;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (values[i] as number) / scale;
  const scaledMean = sum / n;
  // Identical values have exactly zero spread; the rounded mean would otherwise invent some.
  if (n < 2 || min === max) return { n, mean: min === max ? min : scaledMean * scale, sd: 0 };
  let m2 = 0;
  for (let i = 0; i < n; i++) {
    const d = (values[i] as number) / scale - scaledMean;
    m2 += d * d;
  }
  const sd = Math.sqrt(m2 / (n - 1)) * scale;
  const mean = scaledMean * scale;
  return Number.isFinite(sd) && Number.isFinite(mean) ? { n, mean, sd } : 'non_finite';
}

/**
 * Welch's statistic, Welch–Satterthwaite df and the 95% CI of treatment − control.
 * `diff` defaults to the difference of the means; summaries pass a more precise one.
 * Variances enter as (sd/S)² with S the larger sd, so the arithmetic is scale-free.
 */
export function welchCore(
  control: Moments,
  treatment: Moments,
  diff: number = treatment.mean - control.mean,
): WelchCore | StatReason {
  if (control.n === 0 || treatment.n === 0) return 'empty_arm';
  if (control.n < 2 || treatment.n < 2) return 'too_few_users';
  if (!Number.isFinite(diff)) return 'non_finite';
  const scale = Math.max(control.sd, treatment.sd);
  if (scale === 0) return 'zero_variance';
  const a = (control.sd / scale) ** 2 / control.n;
  const b = (treatment.sd / scale) ** 2 / treatment.n;
  const se = scale * Math.sqrt(a + b);
  const df = (a + b) ** 2 / ((a * a) / (control.n - 1) + (b * b) / (treatment.n - 1));
  const t = diff / se;
  const half = tQuantile975(df) * se;
  const ciLow = diff - half;
  const ciHigh = diff + half;
  if (![se, df, t, ciLow, ciHigh].every(Number.isFinite) || se === 0) return 'non_finite';
  return { diff, se, t, df, ciLow, ciHigh };
}

export type SampleArms =
  | {
      ok: true;
      control: Moments;
      treatment: Moments;
      means: { control: number; treatment: number };
    }
  | { ok: false; reason: StatReason; means?: { control: number; treatment: number } };

/**
 * The guard every sample-based two-arm test applies first: finite values, no empty arm, at
 * least two users per arm. The means travel with a refusal so degenerate results still say them.
 */
export function sampleArms(control: ArrayLike<number>, treatment: ArrayLike<number>): SampleArms {
  const mc = momentsFromSample(control);
  const mt = momentsFromSample(treatment);
  if (typeof mc === 'string' || typeof mt === 'string') return { ok: false, reason: 'non_finite' };
  const means = { control: mc.mean, treatment: mt.mean };
  if (mc.n === 0 || mt.n === 0) return { ok: false, reason: 'empty_arm', means };
  if (mc.n < 2 || mt.n < 2) return { ok: false, reason: 'too_few_users', means };
  return { ok: true, control: mc, treatment: mt, means };
}

import { describe, expect, it } from 'vitest';
import { type ArmSummary, mergeSummaries, summarize, welchTest } from '../src/index.ts';
import { momentsFromSummary } from '../src/moments.ts';
import { exactMeanDifference, exactMoments } from './support/exact.ts';
import { Draw } from './support/generate.ts';

// The numerically hard data set: a large mean and a tiny spread (values 1e9 ± 0.01, so the
// noise sits in the last ~20 of the 53 bits). Raw one-pass sums of squares are ~2e22 with a
// rounding step of ~4e6, while n·variance is ~2: every digit of the spread is lost. The
// exact answers come from BigInt rationals (test/support/exact.ts).

const draw = new Draw(424242);
const control = draw.many(20_000, () => 1e9 + draw.normal(0, 0.01));
const treatment = draw.many(15_000, () => 1e9 + 0.0004 + draw.normal(0, 0.012));
const exactC = exactMoments(control);
const exactT = exactMoments(treatment);
const exactDiff = exactMeanDifference(exactC, exactT);
const exactSe = Math.sqrt(exactC.variance / exactC.n + exactT.variance / exactT.n);
const exactStatistic = exactDiff / exactSe;

/** What summing values and squares in double in one pass gives (the old summarize). */
function naiveSummary(values: readonly number[], shift = 0): ArmSummary {
  let sum = 0;
  let sumSquares = 0;
  for (const v of values) {
    sum += v - shift;
    sumSquares += (v - shift) * (v - shift);
  }
  return { n: values.length, sum, sumSquares, shift };
}

function chunks(values: readonly number[], parts: number): number[][] {
  const size = Math.ceil(values.length / parts);
  return Array.from({ length: parts }, (_, i) => values.slice(i * size, (i + 1) * size));
}

function relativeError(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.abs(expected);
}

describe('a large mean with a tiny variance (1e9 ± 0.01), against exact BigInt arithmetic', () => {
  it('the exact answer is a real effect of a few standard errors', () => {
    expect(exactC.variance).toBeGreaterThan(0.8e-4);
    expect(exactC.variance).toBeLessThan(1.2e-4);
    expect(Math.abs(exactStatistic)).toBeGreaterThan(2);
  });

  it('raw one-pass sums lose every digit of the spread', () => {
    const c = momentsFromSummary(naiveSummary(control));
    expect(typeof c).not.toBe('string');
    const sd = typeof c === 'string' ? 0 : c.sd;
    // Either rounded to exactly zero or wrong in the leading digit.
    expect(sd === 0 || relativeError(sd * sd, exactC.variance) > 0.1).toBe(true);
    const naive = welchTest(naiveSummary(control), naiveSummary(treatment));
    expect(naive.ok === false || relativeError(naive.statistic, exactStatistic) > 0.1).toBe(true);
  });

  it('summarize keeps the variance to 1e-12 and Welch t to 1e-10 relative', () => {
    const c = momentsFromSummary(summarize(control));
    if (typeof c === 'string') throw new Error(c);
    expect(relativeError(c.sd * c.sd, exactC.variance)).toBeLessThan(1e-12);
    expect(Math.abs(c.mean - exactC.mean)).toBeLessThanOrEqual(1e-16 * exactC.mean);
    const r = welchTest(summarize(control), summarize(treatment));
    expect(r.ok).toBe(true);
    expect(relativeError(r.effect, exactDiff)).toBeLessThan(1e-9);
    expect(relativeError(r.statistic, exactStatistic)).toBeLessThan(1e-10);
  });

  it("daily summaries merged by Chan's formula keep the same digits", () => {
    const merged = (values: number[]) => mergeSummaries(...chunks(values, 30).map(summarize));
    const c = momentsFromSummary(merged(control));
    if (typeof c === 'string') throw new Error(c);
    expect(relativeError(c.sd * c.sd, exactC.variance)).toBeLessThan(1e-12);
    const r = welchTest(merged(control), merged(treatment));
    expect(relativeError(r.statistic, exactStatistic)).toBeLessThan(1e-10);
  });

  it('SQL-style sums around a rough shift (1e9, plain double sums) are enough', () => {
    const sql = (values: number[]) => naiveSummary(values, 1e9);
    const r = welchTest(sql(control), sql(treatment));
    expect(relativeError(r.statistic, exactStatistic)).toBeLessThan(1e-9);
    // Days summarised by SQL with different shifts merge as well.
    const days = chunks(control, 5).map((d, i) => naiveSummary(d, 1e9 + (i - 2) * 0.01));
    const c = momentsFromSummary(mergeSummaries(...days));
    if (typeof c === 'string') throw new Error(c);
    expect(relativeError(c.sd * c.sd, exactC.variance)).toBeLessThan(1e-9);
  });
});

describe('summaries', () => {
  it('merging is order-free and matches one summary of everything', () => {
    const d = new Draw(5);
    const parts = [7, 1, 30, 2, 0, 12].map((n) => d.many(n, () => d.lognormal(3, 1)));
    const all = parts.flat();
    const forward = momentsFromSummary(mergeSummaries(...parts.map(summarize)));
    const backward = momentsFromSummary(mergeSummaries(...parts.map(summarize).reverse()));
    const whole = momentsFromSummary(summarize(all));
    for (const m of [forward, backward]) {
      if (typeof m === 'string' || typeof whole === 'string') throw new Error('non-finite');
      expect(m.n).toBe(whole.n);
      expect(relativeError(m.mean, whole.mean)).toBeLessThan(1e-14);
      expect(relativeError(m.sd, whole.sd)).toBeLessThan(1e-13);
    }
  });

  it('a raw-sum summary (no shift) merges with a centred one', () => {
    const a = [1, 2, 3, 4];
    const b = [10, 20];
    const raw = naiveSummary(a);
    expect(raw.shift).toBe(0);
    const m = momentsFromSummary(mergeSummaries(raw, summarize(b)));
    const whole = momentsFromSummary(summarize([...a, ...b]));
    if (typeof m === 'string' || typeof whole === 'string') throw new Error('non-finite');
    expect(m.mean).toBeCloseTo(whole.mean, 13);
    expect(m.sd).toBeCloseTo(whole.sd, 13);
  });

  it('a constant arm has exactly zero spread, merged or not', () => {
    const s = mergeSummaries(summarize([0.1, 0.1, 0.1]), summarize([0.1, 0.1]));
    const m = momentsFromSummary(s);
    expect(m).toEqual({ n: 5, mean: 0.1, sd: 0 });
  });

  it('empty parts are ignored and no parts give the empty summary', () => {
    expect(mergeSummaries()).toMatchObject({ n: 0, sum: 0, sumSquares: 0 });
    const s = mergeSummaries(summarize([]), summarize([2, 4]));
    expect(momentsFromSummary(s)).toEqual({ n: 2, mean: 3, sd: Math.SQRT2 });
  });
});

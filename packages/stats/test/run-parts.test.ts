import { describe, expect, it } from 'vitest';
import {
  confidenceSequence,
  cupedTest,
  decidePairs,
  mergeCovariateSummaries,
  srmGate,
  summarize,
  summarizeWithCovariate,
  testSummaryPair,
  welchEstimate,
  welchTest,
} from '../src/index.ts';
import { covariateDataset, Draw } from './support/generate.ts';
import { expectJsonSafe } from './support/json-safe.ts';

const d = new Draw(77);
const strong = (() => {
  for (;;) {
    const set = covariateDataset(d, 0);
    if (set.name.includes('signal 0.95')) return set;
  }
})();
const covC = summarizeWithCovariate(strong.control.y, strong.control.x);
const covT = summarizeWithCovariate(strong.treatment.y, strong.treatment.x);

describe('confidence sequence', () => {
  it('p < α exactly when the interval excludes 0 (the p-value inverts the sequence)', () => {
    const r = new Draw(3);
    for (let i = 0; i < 2000; i++) {
      const estimate = {
        effect: r.normal(0, 1),
        variance: r.uniform() * 0.5 + 1e-3,
        n: r.int(10, 100_000),
      };
      const s = confidenceSequence(estimate, { alpha: 0.05 });
      const excludes = s.ci_low > 0 || s.ci_high < 0;
      // Away from the boundary itself, where rounding may tip either way.
      const margin = Math.min(Math.abs(s.ci_low), Math.abs(s.ci_high)) / (s.ci_high - s.ci_low);
      if (margin > 1e-9) expect(s.p_value < 0.05).toBe(excludes);
    }
  });

  it('is wider than the fixed-horizon interval and narrows as users arrive', () => {
    const c = summarize(strong.control.y);
    const t = summarize(strong.treatment.y);
    const fixed = welchTest(c, t);
    const seq = confidenceSequence(welchEstimate(c, t)!);
    expect(seq.ci_low).toBeLessThan(fixed.ci_low);
    expect(seq.ci_high).toBeGreaterThan(fixed.ci_high);
    expect(seq.p_value).toBeGreaterThanOrEqual(fixed.p_value);
    const width = (n: number) => {
      const s = confidenceSequence({ effect: 0, variance: 1 / n, n });
      return s.ci_high - s.ci_low;
    };
    expect(width(10_000)).toBeLessThan(width(1000));
  });

  it('degenerate estimates give p = 1 and a collapsed, finite interval', () => {
    for (const e of [
      { effect: 2, variance: 0, n: 10 },
      { effect: 2, variance: 1, n: 0 },
      { effect: Number.NaN, variance: 1, n: 10 },
      { effect: 2, variance: Number.POSITIVE_INFINITY, n: 10 },
    ]) {
      const s = confidenceSequence(e);
      expectJsonSafe(s);
      expect(s.p_value).toBe(1);
      expect(s.ci_low).toBe(s.ci_high);
    }
    expect(confidenceSequence({ effect: 1, variance: 1, n: 10 }, { alpha: 0 }).p_value).toBe(1);
  });
});

describe('CUPED', () => {
  it('without any pre-period data it is the unadjusted test (theta 0, coverage 0)', () => {
    const none = (y: number[]) =>
      summarizeWithCovariate(
        y,
        y.map(() => null),
      );
    const r = cupedTest(none(strong.control.y), none(strong.treatment.y));
    expect(r.cuped).toEqual({ theta: 0, variance_reduction: 0, covariate_coverage: 0 });
    expect(r.p_value).toBeCloseTo(r.unadjusted.p_value, 14);
    expect(r.ci_low).toBeCloseTo(r.unadjusted.ci_low, 10);
  });

  it('daily covariate summaries merged give the same adjusted result', () => {
    const days = (y: number[], x: (number | null)[]) =>
      mergeCovariateSummaries(
        ...[0, 1, 2, 3].map((k) =>
          summarizeWithCovariate(
            y.filter((_, i) => i % 4 === k),
            x.filter((_, i) => i % 4 === k),
          ),
        ),
      );
    const merged = cupedTest(
      days(strong.control.y, strong.control.x),
      days(strong.treatment.y, strong.treatment.x),
    );
    const whole = cupedTest(covC, covT);
    expect(merged.cuped.theta).toBeCloseTo(whole.cuped.theta, 12);
    for (const k of ['effect', 'ci_low', 'ci_high', 'p_value', 'statistic'] as const) {
      expect(Math.abs(merged[k] - whole[k])).toBeLessThanOrEqual(
        1e-10 * Math.max(1, Math.abs(whole[k])),
      );
    }
    expect(merged.cuped.covariate_coverage).toBe(whole.cuped.covariate_coverage);
  });

  it('mismatched arrays or empty arms answer a finite degenerate result', () => {
    const r = cupedTest(summarizeWithCovariate([], []), covT);
    expectJsonSafe(r);
    expect(r).toMatchObject({ ok: false, reason: 'empty_arm', p_value: 1 });
    expect(summarizeWithCovariate([1, 2], [1]).n).toBe(2);
  });
});

describe('testSummaryPair (what computeRun calls per metric × treatment)', () => {
  it('welch_t: CUPED narrows the CI and reports the unadjusted result beside it', () => {
    const r = testSummaryPair({
      method: 'welch_t',
      control: summarize(strong.control.y),
      treatment: summarize(strong.treatment.y),
      cuped: { control: covC, treatment: covT },
      sequential: {},
    });
    expect(r.cuped?.variance_reduction).toBeGreaterThan(0.5);
    expect(r.unadjusted).not.toBeNull();
    expect(r.ci_high - r.ci_low).toBeLessThan(
      (r.unadjusted?.ci_high ?? 0) - (r.unadjusted?.ci_low ?? 0),
    );
    expect(r.sequential).not.toBeNull();
    expect(r.sequential!.ci_high - r.sequential!.ci_low).toBeGreaterThan(r.ci_high - r.ci_low);
  });

  it('nightly runs (no sequential settings) carry no sequential block', () => {
    const r = testSummaryPair({
      method: 'welch_t',
      control: summarize([1, 2, 3, 4]),
      treatment: summarize([2, 3, 4, 6]),
    });
    expect(r).toMatchObject({ test: 'welch_t', cuped: null, unadjusted: null, sequential: null });
  });

  it('a degenerate pair has no sequential result either', () => {
    const r = testSummaryPair({
      method: 'two_proportion_z',
      control: summarize([0, 0, 0]),
      treatment: summarize([0, 0]),
      sequential: { tuning: 1000 },
    });
    expect(r).toMatchObject({ ok: false, reason: 'zero_variance', sequential: null });
  });
});

describe('SRM gate and decisions', () => {
  it('halts below p = 0.001 only', () => {
    expect(srmGate([{ n: 5000 }, { n: 5000 }], [50, 50])).toMatchObject({
      halted: false,
      p_value: 1,
    });
    const skewed = srmGate(
      [summarize(Array(5300).fill(1)), summarize(Array(4700).fill(1))],
      [50, 50],
    );
    expect(skewed.p_value).toBeLessThan(0.001);
    expect(skewed.halted).toBe(true);
    expect(srmGate([{ n: 0 }, { n: 0 }], [50, 50])).toMatchObject({ ok: false, halted: false });
  });

  it('manual runs decide on the sequential FDR p, nightly runs on the fixed one', () => {
    const pairs = [
      { ok: true, p_value: 0.001, sequential_p_value: 0.2 },
      { ok: true, p_value: 0.02, sequential_p_value: 0.001 },
      { ok: false, p_value: 1, sequential_p_value: null },
    ];
    const fixed = decidePairs(pairs, 'fixed');
    const seq = decidePairs(pairs, 'sequential');
    expect(fixed.map((r) => r.significant)).toEqual([true, true, false]);
    expect(seq.map((r) => r.significant)).toEqual([false, true, false]);
    expect(seq[1]?.sequential_p_value_fdr).toBeCloseTo(0.003, 12);
    expect(seq[2]?.sequential_p_value_fdr).toBeNull();
    expect(fixed[1]?.p_value_fdr).toBeCloseTo(0.03, 12);
  });
});

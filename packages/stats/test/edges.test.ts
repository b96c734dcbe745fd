import { describe, expect, it } from 'vitest';
import {
  benjaminiHochberg,
  chiSquareGoodnessOfFit,
  EMPTY_SUMMARY,
  histogram,
  mannWhitneyTest,
  mergeSummaries,
  permutationTest,
  summarize,
  twoProportionZTest,
  welchTest,
} from '../src/index.ts';
import { expectJsonSafe } from './support/json-safe.ts';

const HUGE = [1e300, 2e300, 3e300, 1.5e300];
const PERM = { maxPermutations: 500, maxSamplePerArm: 1000 };

/** Arm pairs no test may throw on or answer NaN/Infinity for. */
const awkward: Record<string, [number[], number[]]> = {
  'both empty': [[], []],
  'control empty': [[], [1, 2, 3]],
  'one user each': [[1], [2]],
  'one user in treatment': [[1, 2, 3], [5]],
  'zero variance, equal means': [
    [0.1, 0.1, 0.1],
    [0.1, 0.1],
  ],
  'zero variance, different means': [
    [0, 0, 0, 0],
    [1, 1, 1],
  ],
  'all ties': [
    [7, 7, 7, 7],
    [7, 7, 7],
  ],
  'huge values': [HUGE, HUGE.map((v) => v * 0.5)],
  'huge of both signs': [
    [1.7e308, -1.7e308, 1e308],
    [-1.7e308, 1.7e308, 0],
  ],
  'NaN in an arm': [
    [1, Number.NaN, 3],
    [1, 2, 3],
  ],
  'Infinity in an arm': [
    [1, 2, 3],
    [1, Number.POSITIVE_INFINITY, 3],
  ],
};

describe('every two-arm test answers a finite, coded result for awkward input', () => {
  for (const [name, [c, t]] of Object.entries(awkward)) {
    it(name, () => {
      const results = [
        welchTest(summarize(c), summarize(t)),
        mannWhitneyTest(c, t),
        permutationTest(c, t, PERM),
      ];
      for (const r of results) {
        expectJsonSafe(r, `${r.test}(${name})`);
        expect(r.p_value).toBeGreaterThanOrEqual(0);
        expect(r.p_value).toBeLessThanOrEqual(1);
        expect(r.ok).toBe(r.reason === null);
        if (!r.ok) expect(r.p_value).toBe(1);
      }
    });
  }
});

describe('welch_t edge rules', () => {
  it('empty arm → empty_arm, p = 1', () => {
    const r = welchTest(EMPTY_SUMMARY, summarize([1, 2, 3]));
    expect(r).toMatchObject({ ok: false, reason: 'empty_arm', p_value: 1, effect: 0, df: 0 });
  });
  it('fewer than two users → too_few_users, effect still the mean difference', () => {
    const r = welchTest(summarize([1]), summarize([2, 4]));
    expect(r).toMatchObject({ ok: false, reason: 'too_few_users', p_value: 1, effect: 2 });
  });
  it('zero variance in both arms → zero_variance with the CI collapsed on the effect', () => {
    const r = welchTest(summarize([0, 0, 0]), summarize([1, 1]));
    expect(r).toMatchObject({
      reason: 'zero_variance',
      p_value: 1,
      effect: 1,
      ci_low: 1,
      ci_high: 1,
    });
  });
  it('equal constants in arms of different sizes are not "significant" through rounding', () => {
    const r = welchTest(summarize(Array(7).fill(0.1)), summarize(Array(3).fill(0.1)));
    expect(r.reason).toBe('zero_variance');
  });
  it('zero variance in one arm only is an ordinary test', () => {
    const r = welchTest(summarize([5, 5, 5, 5]), summarize([4, 6, 5, 7]));
    expect(r.ok).toBe(true);
    expect(r.df).toBeCloseTo(3, 12);
  });
  it('sums of squares that overflow (|x| ~ 1e300) → non_finite', () => {
    expect(welchTest(summarize(HUGE), summarize(HUGE)).reason).toBe('non_finite');
  });
  it('merged summaries give the same answer as one summary', () => {
    const a = [3, 4, 8, 1];
    const b = [9, 2, 2];
    const c = [4, 4, 5, 6, 1];
    // Chan's merge and the two-pass summary round differently: equal to the last few ulps.
    const merged = welchTest(mergeSummaries(summarize(a), summarize(b)), summarize(c));
    const whole = welchTest(summarize([...a, ...b]), summarize(c));
    for (const key of ['statistic', 'p_value', 'df', 'effect', 'ci_low', 'ci_high'] as const) {
      expect(Math.abs(merged[key] - whole[key])).toBeLessThanOrEqual(1e-14 * Math.abs(whole[key]));
    }
    expect(merged.n_control).toBe(7);
  });
  it('lift is null when the control mean is 0', () => {
    expect(welchTest(summarize([-1, 1, 0]), summarize([1, 2, 3])).lift).toBeNull();
  });
});

describe('mann_whitney edge rules', () => {
  it('all values tied → all_ties, p = 1', () => {
    expect(mannWhitneyTest([7, 7, 7], [7, 7])).toMatchObject({
      reason: 'all_ties',
      p_value: 1,
      u: 0,
      z: 0,
    });
  });
  it('ties only within arms is a valid test (arms perfectly separated)', () => {
    const r = mannWhitneyTest([0, 0, 0, 0, 0], [1, 1, 1, 1, 1]);
    expect(r.ok).toBe(true);
    expect(r.u).toBe(25);
    expect(r.p_value).toBeLessThan(0.01);
    // Welch's CI has no spread to work with here: it collapses onto the effect.
    expect([r.ci_low, r.ci_high]).toEqual([1, 1]);
  });
  it('huge values rank like any others and keep a finite effect and CI', () => {
    const r = mannWhitneyTest(
      HUGE,
      HUGE.map((v) => v * 1.5),
    );
    expect(r.ok).toBe(true);
    expect(r.effect).toBeGreaterThan(0);
    expectJsonSafe(r);
  });
  it('empty and single-user arms are coded', () => {
    expect(mannWhitneyTest([], [1, 2]).reason).toBe('empty_arm');
    expect(mannWhitneyTest([1], [1, 2]).reason).toBe('too_few_users');
    expect(mannWhitneyTest([1, Number.NaN], [1, 2]).reason).toBe('non_finite');
  });
  it('z is signed towards the treatment and p is symmetric', () => {
    const a = mannWhitneyTest([1, 2, 3, 4], [5, 6, 7, 8]);
    const b = mannWhitneyTest([5, 6, 7, 8], [1, 2, 3, 4]);
    expect(a.z).toBeGreaterThan(0);
    expect(b.z).toBe(-a.z);
    expect(b.p_value).toBe(a.p_value);
  });
});

describe('permutation edge rules', () => {
  const c = Array.from({ length: 300 }, (_, i) => (i * 37) % 101);
  const t = Array.from({ length: 250 }, (_, i) => ((i * 53) % 97) + 4);
  it('is deterministic for a seed and changes with the seed', () => {
    const opts = { maxPermutations: 999, maxSamplePerArm: 200 };
    const a = permutationTest(c, t, { ...opts, seed: 1 });
    expect(permutationTest(c, t, { ...opts, seed: 1 })).toEqual(a);
    expect(permutationTest(c, t, { ...opts, seed: 2 }).p_value).not.toBe(a.p_value);
  });
  it('caps permutations and samples arms down, reporting both', () => {
    const r = permutationTest(c, t, { maxPermutations: 999, maxSamplePerArm: 200 });
    expect(r).toMatchObject({
      ok: true,
      permutations_used: 999,
      sample_cap_used: true,
      exact: false,
    });
    // effect and CI come from every user, not the sample
    expect(r.n_control).toBe(300);
    expect(r.effect).toBeCloseTo(
      t.reduce((a, b) => a + b, 0) / 250 - c.reduce((a, b) => a + b, 0) / 300,
      12,
    );
  });
  it('Monte Carlo p is never 0: (b + 1)/(m + 1)', () => {
    const far = permutationTest(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      [101, 102, 103, 104, 105, 106, 107, 108, 109, 110],
      {
        maxPermutations: 99,
        maxSamplePerArm: 100,
      },
    );
    expect(far.exact).toBe(false);
    expect(far.p_value).toBe(1 / 100);
  });
  it('enumerates exactly when every split fits: C(6, 3) = 20 splits', () => {
    const r = permutationTest([1, 2, 3], [4, 5, 6], { maxPermutations: 20, maxSamplePerArm: 10 });
    expect(r).toMatchObject({ exact: true, permutations_used: 20, p_value: 2 / 20, statistic: 3 });
  });
  it('all values equal → zero_variance, p = 1', () => {
    expect(permutationTest([2, 2, 2], [2, 2], PERM)).toMatchObject({
      reason: 'zero_variance',
      p_value: 1,
    });
  });
  it('a cap below 1 permutation or 2 users is invalid_input', () => {
    expect(permutationTest(c, t, { maxPermutations: 0, maxSamplePerArm: 100 }).reason).toBe(
      'invalid_input',
    );
    expect(permutationTest(c, t, { maxPermutations: 10, maxSamplePerArm: 1 }).reason).toBe(
      'invalid_input',
    );
  });
});

describe('two_proportion_z edge rules', () => {
  it('nobody converted → zero_variance, p = 1, effect 0', () => {
    const r = twoProportionZTest({ n: 100, successes: 0 }, { n: 80, successes: 0 });
    expect(r).toMatchObject({
      ok: false,
      reason: 'zero_variance',
      p_value: 1,
      effect: 0,
      lift: null,
    });
  });
  it('everybody converted → zero_variance', () => {
    expect(twoProportionZTest({ n: 5, successes: 5 }, { n: 3, successes: 3 }).reason).toBe(
      'zero_variance',
    );
  });
  it('0% vs 100% is a test; the Wald CI collapses on the effect', () => {
    const r = twoProportionZTest({ n: 50, successes: 0 }, { n: 50, successes: 50 });
    expect(r.ok).toBe(true);
    expect([r.ci_low, r.ci_high]).toEqual([1, 1]);
    expect(r.lift).toBeNull();
  });
  it('empty arm and impossible counts are coded', () => {
    expect(twoProportionZTest({ n: 0, successes: 0 }, { n: 10, successes: 1 }).reason).toBe(
      'empty_arm',
    );
    expect(twoProportionZTest({ n: 5, successes: 6 }, { n: 10, successes: 1 }).reason).toBe(
      'invalid_input',
    );
    expect(twoProportionZTest({ n: 5, successes: 0.5 }, { n: 10, successes: 1 }).reason).toBe(
      'invalid_input',
    );
    expect(
      twoProportionZTest({ n: Number.NaN, successes: 0 }, { n: 10, successes: 1 }).reason,
    ).toBe('invalid_input');
  });
  it('huge arms stay finite', () => {
    const r = twoProportionZTest({ n: 9e15, successes: 4e15 }, { n: 9e15, successes: 4.5e15 });
    expectJsonSafe(r);
    expect(r.p_value).toBe(0);
  });
});

describe('chi-square goodness-of-fit edge rules', () => {
  it('perfect fit → statistic 0, p = 1', () => {
    expect(chiSquareGoodnessOfFit([50, 50], [50, 50])).toMatchObject({
      ok: true,
      statistic: 0,
      df: 1,
      p_value: 1,
    });
  });
  it('no users → no_observations', () => {
    expect(chiSquareGoodnessOfFit([0, 0], [50, 50])).toMatchObject({
      reason: 'no_observations',
      p_value: 1,
    });
  });
  it('one arm → too_few_categories', () => {
    expect(chiSquareGoodnessOfFit([10], [100]).reason).toBe('too_few_categories');
  });
  it('an empty share-0 arm is dropped from df', () => {
    expect(chiSquareGoodnessOfFit([40, 60, 0], [50, 50, 0])).toMatchObject({ ok: true, df: 1 });
  });
  it('users in a share-0 arm → p = 0, statistic MAX_VALUE (a certain mismatch)', () => {
    const r = chiSquareGoodnessOfFit([40, 60, 3], [50, 50, 0]);
    expect(r).toMatchObject({ ok: false, reason: 'observed_in_zero_share', p_value: 0 });
    expectJsonSafe(r);
  });
  it('negative, non-finite or mismatched input → invalid_input', () => {
    expect(chiSquareGoodnessOfFit([1, -1], [50, 50]).reason).toBe('invalid_input');
    expect(chiSquareGoodnessOfFit([1, Number.NaN], [50, 50]).reason).toBe('invalid_input');
    expect(chiSquareGoodnessOfFit([1, 2], [50]).reason).toBe('invalid_input');
    expect(chiSquareGoodnessOfFit([1, 2], [0, 0]).reason).toBe('invalid_input');
  });
  it('astronomically large counts stay finite', () => {
    const r = chiSquareGoodnessOfFit([1e307, 1e300], [50, 50]);
    expectJsonSafe(r);
    expect(r.p_value).toBe(0);
  });
});

describe('benjamini-hochberg rules', () => {
  it('is monotone in p, capped at 1, in the input order', () => {
    const p = [0.04, 0.001, 0.9, 0.03, 0.5];
    const q = benjaminiHochberg(p);
    expect(q).toEqual([0.2 / 3, 0.005, 0.9, 0.2 / 3, 0.625]);
    const byP = p
      .map((v, i) => [v, q[i] as number])
      .sort((a, b) => (a[0] as number) - (b[0] as number));
    for (let i = 1; i < byP.length; i++) expect(byP[i]![1]).toBeGreaterThanOrEqual(byP[i - 1]![1]!);
  });
  it('gives tied p-values the same q', () => {
    const q = benjaminiHochberg([0.01, 0.02, 0.01, 0.02]);
    expect(q[0]).toBe(q[2]);
    expect(q[1]).toBe(q[3]);
  });
  it('is NaN-free: NaN counts as 1, out-of-range values are clamped', () => {
    const q = benjaminiHochberg([Number.NaN, 0.01, -1, 2, Number.POSITIVE_INFINITY]);
    expectJsonSafe(q);
    expect(q[0]).toBe(1);
    expect(q[2]).toBe(0);
  });
  it('empty in, empty out', () => {
    expect(benjaminiHochberg([])).toEqual([]);
  });
});

describe('histogram rules', () => {
  it('shares edges across arms and counts the maximum in the last bin', () => {
    const h = histogram({ control: [0, 1, 2, 3, 4], treatment: [4, 4, 8] }, 4);
    expect(h.bin_edges).toEqual([0, 2, 4, 6, 8]);
    expect(h.counts).toEqual({ control: [2, 2, 1, 0], treatment: [0, 0, 2, 1] });
  });
  it('a single distinct value gets [v − 0.5, v + 0.5] like numpy', () => {
    const h = histogram({ a: [3, 3], b: [] }, 2);
    expect(h).toEqual({ bin_edges: [2.5, 3, 3.5], counts: { a: [0, 2], b: [0, 0] } });
  });
  it('no finite values at all → no bins', () => {
    expect(histogram({ a: [], b: [Number.NaN] })).toEqual({
      bin_edges: [],
      counts: { a: [], b: [] },
    });
  });
  it('huge and single huge values keep increasing, finite edges', () => {
    for (const arms of [{ a: [-1.7e308, 1.7e308] }, { a: [1e300] }]) {
      const h = histogram(arms, 5);
      expectJsonSafe(h);
      for (let i = 1; i < h.bin_edges.length; i++)
        expect(h.bin_edges[i]!).toBeGreaterThan(h.bin_edges[i - 1]!);
      expect(h.counts.a!.reduce((x, y) => x + y, 0)).toBe(arms.a.length);
    }
  });
  it('ignores non-finite values and falls back to the default bin count on a bad one', () => {
    const h = histogram({ a: [1, 2, Number.NaN, Number.POSITIVE_INFINITY] }, 0);
    expect(h.bin_edges).toHaveLength(21);
    expect(h.counts.a!.reduce((x, y) => x + y, 0)).toBe(2);
  });
});

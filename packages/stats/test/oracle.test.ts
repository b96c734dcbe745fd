import { describe, expect, it } from 'vitest';
import {
  benjaminiHochberg,
  chiSquareGoodnessOfFit,
  histogram,
  mannWhitneyTest,
  permutationTest,
  summarize,
  twoProportionZTest,
  welchTest,
} from '../src/index.ts';
import { type Dataset, Draw, ORACLE_SEED, oracleDatasets } from './support/generate.ts';
import { expectNear } from './support/near.ts';
import { runOracle } from './support/oracle.ts';

// Golden comparisons against scipy / statsmodels / numpy (oracle/oracle.py, versions pinned
// in oracle/requirements.txt). Every data set is generated here from a fixed seed and the
// oracle is spawned once for all of them.

const draw = new Draw(ORACLE_SEED);
const datasets: Dataset[] = oracleDatasets(draw);

/** Extreme effects: true p-values near 1e-80, where 1 − cdf would already be exactly 0. */
const extreme = new Draw(7);
const extremeWelch = {
  control: extreme.many(300, () => extreme.normal(0, 1)),
  treatment: extreme.many(300, () => extreme.normal(1.85, 1)),
};
const extremeMw = {
  control: extreme.many(600, () => extreme.normal(0, 1)),
  treatment: extreme.many(600, () => extreme.normal(1.15, 1)),
};
const extremeProportion = {
  control: { n: 5000, successes: 60 },
  treatment: { n: 5000, successes: 470 },
};
const extremeChi = { observed: [5000, 3250], shares: [50, 50] };

/** Tiny samples with ties: every split fits in the cap, so both sides enumerate exactly. */
const tiny = Array.from({ length: 25 }, (_, i) => {
  const nC = draw.int(3, 8);
  const nT = draw.int(3, 8);
  const v = () => Math.round(draw.normal(10, 3)) / 2;
  return {
    name: `tiny #${i} (n ${nC}/${nT})`,
    control: draw.many(nC, v),
    treatment: draw.many(nT, v),
  };
});
/** Monte Carlo on both sides: moderate samples, effects from none to clear. */
const PERM_M = 4000;
const SCIPY_RESAMPLES = 9999;
const monteCarlo = datasets
  .filter((d) => d.kind !== 'conversion' && d.control.length <= 200 && d.treatment.length <= 200)
  .slice(0, 40);

const chiCases = Array.from({ length: 60 }, (_, i) => {
  const k = draw.int(2, 4);
  const shares = draw.many(k, () => draw.pick([10, 20, 25, 33.3, 50]));
  const n = draw.pick([300, 5000, 200000]);
  const total = shares.reduce((a, b) => a + b, 0);
  const skew = draw.pick([0, 0, 0.01, 0.05]);
  const observed = shares.map((s, j) =>
    Math.max(
      0,
      Math.round(
        (n * s) / total + draw.normal(0, Math.sqrt((n * s) / total)) + (j === 0 ? skew * n : 0),
      ),
    ),
  );
  return { name: `chi #${i} (k ${k}, n ${n})`, observed, shares };
});

const welchTs = datasets.map((d) => welchTest(summarize(d.control), summarize(d.treatment)));
const bhCases = [
  ...Array.from({ length: 20 }, (_, i) => welchTs.slice(i * 15, i * 15 + 15).map((r) => r.p_value)),
  [0.01, 0.01, 0.01, 0.04, 0.04, 0.5, 1, 0],
  [1e-80, 1e-300, 0.049, 0.05, 0.051, 0.9, 0.9, 0.9],
  [0.2],
];

const conversions = (d: Dataset) => ({
  control: { n: d.control.length, successes: d.control.reduce((a, b) => a + b, 0) },
  treatment: { n: d.treatment.length, successes: d.treatment.reduce((a, b) => a + b, 0) },
});

const cases: Record<string, unknown>[] = [
  ...datasets.map((d) => ({ kind: 'welch', control: d.control, treatment: d.treatment })),
  ...datasets.map((d) => ({ kind: 'mann_whitney', control: d.control, treatment: d.treatment })),
  ...datasets
    .filter((d) => d.kind === 'conversion')
    .map((d) => ({ kind: 'two_proportion', ...conversions(d) })),
  ...datasets.map((d) => ({
    kind: 'histogram',
    bins: 20,
    arms: { control: d.control, treatment: d.treatment },
  })),
  ...chiCases.map((c) => ({ kind: 'chi_square', observed: c.observed, shares: c.shares })),
  ...bhCases.map((p) => ({ kind: 'bh', p_values: p })),
  ...tiny.map((t) => ({ kind: 'permutation', ...t, n_resamples: 1_000_000, seed: 1 })),
  ...monteCarlo.map((d, i) => ({
    kind: 'permutation',
    control: d.control,
    treatment: d.treatment,
    n_resamples: SCIPY_RESAMPLES,
    seed: i,
  })),
  { kind: 'welch', ...extremeWelch },
  { kind: 'mann_whitney', ...extremeMw },
  { kind: 'two_proportion', ...extremeProportion },
  { kind: 'chi_square', ...extremeChi },
];
const reply = runOracle(cases);
let cursor = 0;
const take = (n: number) => {
  const out = reply.results.slice(cursor, cursor + n);
  cursor += n;
  return out;
};
const oracleWelch = take(datasets.length);
const oracleMw = take(datasets.length);
const conversionSets = datasets.filter((d) => d.kind === 'conversion');
const oracleProp = take(conversionSets.length);
const oracleHist = take(datasets.length);
const oracleChi = take(chiCases.length);
const oracleBh = take(bhCases.length);
const oracleTiny = take(tiny.length);
const oracleMc = take(monteCarlo.length);
const [oracleExtremeWelch, oracleExtremeMw, oracleExtremeProp, oracleExtremeChi] = take(4);

const near = expectNear;

it(`oracle answered (${JSON.stringify(reply.versions)})`, () => {
  expect(cursor).toBe(cases.length);
});

describe('welch_t vs scipy.stats.ttest_ind(equal_var=False) and t.ppf CI [rel 1e-9; p abs 1e-12]', () => {
  datasets.forEach((d, i) => {
    it(d.name, () => {
      const ours = welchTs[i]!;
      const ref = oracleWelch[i]!;
      expect(ours.ok).toBe(true);
      near(ours.statistic, ref.statistic, 1e-9, 1e-12, 't');
      near(ours.df, ref.df, 1e-9, 0, 'df');
      near(ours.p_value, ref.p_value, 1e-9, 1e-12, 'p');
      near(ours.ci_low, ref.ci_low, 1e-9, 1e-9 * Math.abs(ours.ci_high - ours.ci_low), 'ci_low');
      near(ours.ci_high, ref.ci_high, 1e-9, 1e-9 * Math.abs(ours.ci_high - ours.ci_low), 'ci_high');
    });
  });
});

describe('mann_whitney vs scipy.stats.mannwhitneyu(asymptotic, continuity) [U exact; p rel 1e-9, abs 1e-12]', () => {
  datasets.forEach((d, i) => {
    it(d.name, () => {
      const ours = mannWhitneyTest(d.control, d.treatment);
      const ref = oracleMw[i]!;
      expect(ours.ok).toBe(true);
      near(ours.u, ref.u, 0, 0, 'U');
      near(ours.p_value, ref.p_value, 1e-9, 1e-12, 'p');
    });
  });
});

describe('two_proportion_z vs statsmodels proportions_ztest + confint_proportions_2indep(wald) [rel 1e-9]', () => {
  conversionSets.forEach((d, i) => {
    it(d.name, () => {
      const { control, treatment } = conversions(d);
      const ours = twoProportionZTest(control, treatment);
      const ref = oracleProp[i]!;
      near(ours.statistic, ref.statistic, 1e-9, 1e-12, 'z');
      near(ours.p_value, ref.p_value, 1e-9, 1e-12, 'p');
      near(ours.ci_low, ref.ci_low, 1e-9, 1e-15, 'ci_low');
      near(ours.ci_high, ref.ci_high, 1e-9, 1e-15, 'ci_high');
    });
  });
});

describe('chi-square goodness of fit vs scipy.stats.chisquare [rel 1e-9; p abs 1e-12]', () => {
  chiCases.forEach((c, i) => {
    it(c.name, () => {
      const ours = chiSquareGoodnessOfFit(c.observed, c.shares);
      const ref = oracleChi[i]!;
      expect(ours.df).toBe(ref.df);
      near(ours.statistic, ref.statistic, 1e-9, 1e-12, 'statistic');
      near(ours.p_value, ref.p_value, 1e-9, 1e-12, 'p');
    });
  });
});

describe('benjamini-hochberg vs statsmodels multipletests(fdr_bh) [rel 1e-12]', () => {
  bhCases.forEach((p, i) => {
    it(`set #${i} (${p.length} p-values)`, () => {
      const ours = benjaminiHochberg(p);
      const ref = oracleBh[i]!.adjusted as number[];
      ours.forEach((q, j) => {
        near(q, ref[j], 1e-12, 0, `q[${j}]`);
      });
    });
  });
});

describe('histogram vs numpy.histogram(range=(pooled min, max)) [edges rel 1e-12, counts exact]', () => {
  datasets.forEach((d, i) => {
    it(d.name, () => {
      const ours = histogram({ control: d.control, treatment: d.treatment }, 20);
      const ref = oracleHist[i]!;
      ours.bin_edges.forEach((e, j) => {
        near(e, (ref.bin_edges as number[])[j], 1e-12, 1e-12, `edge ${j}`);
      });
      expect(ours.counts).toEqual(ref.counts);
    });
  });
});

describe('permutation vs scipy.stats.permutation_test, exact enumeration on tiny samples [abs 1e-12]', () => {
  tiny.forEach((t, i) => {
    it(t.name, () => {
      const ours = permutationTest(t.control, t.treatment, {
        maxPermutations: 100_000,
        maxSamplePerArm: 100,
      });
      const ref = oracleTiny[i]!;
      expect(ours.exact).toBe(true);
      expect(ours.permutations_used).toBe(ref.null_size);
      near(ours.p_value, ref.p_value, 0, 1e-12, 'p');
    });
  });
});

describe(`permutation vs scipy.stats.permutation_test, Monte Carlo (${PERM_M} vs ${SCIPY_RESAMPLES} resamples) [4.5 binomial sd + 2/m]`, () => {
  monteCarlo.forEach((d, i) => {
    it(d.name, () => {
      const ours = permutationTest(d.control, d.treatment, {
        maxPermutations: PERM_M,
        maxSamplePerArm: 10_000,
        seed: i,
      });
      const ref = oracleMc[i]!.p_value as number;
      expect(ours.permutations_used).toBe(PERM_M);
      expect(ours.sample_cap_used).toBe(false);
      const pBar = Math.max((ours.p_value + ref) / 2, 1 / PERM_M);
      const tol =
        4.5 * Math.sqrt(pBar * (1 - pBar) * (1 / PERM_M + 1 / SCIPY_RESAMPLES)) + 2 / PERM_M;
      near(ours.p_value, ref, 0, tol, 'p');
    });
  });
});

describe('extreme effects: p near 1e-80 matches the oracle to rel 1e-8 (1 − cdf would give 0)', () => {
  it('welch_t vs scipy.stats.ttest_ind', () => {
    const ours = welchTest(summarize(extremeWelch.control), summarize(extremeWelch.treatment));
    expect(ours.p_value).toBeLessThan(1e-70);
    expect(ours.p_value).toBeGreaterThan(1e-95);
    near(ours.p_value, oracleExtremeWelch!.p_value, 1e-8, 0, 'p');
  });
  it('mann_whitney vs scipy.stats.mannwhitneyu', () => {
    const ours = mannWhitneyTest(extremeMw.control, extremeMw.treatment);
    expect(ours.p_value).toBeLessThan(1e-70);
    expect(ours.p_value).toBeGreaterThan(1e-95);
    near(ours.p_value, oracleExtremeMw!.p_value, 1e-8, 0, 'p');
  });
  it('two_proportion_z vs statsmodels proportions_ztest', () => {
    const ours = twoProportionZTest(extremeProportion.control, extremeProportion.treatment);
    expect(ours.p_value).toBeLessThan(1e-70);
    expect(ours.p_value).toBeGreaterThan(1e-95);
    near(ours.p_value, oracleExtremeProp!.p_value, 1e-8, 0, 'p');
  });
  it('chi-square vs scipy.stats.chisquare', () => {
    const ours = chiSquareGoodnessOfFit(extremeChi.observed, extremeChi.shares);
    expect(ours.p_value).toBeLessThan(1e-70);
    expect(ours.p_value).toBeGreaterThan(1e-95);
    near(ours.p_value, oracleExtremeChi!.p_value, 1e-8, 0, 'p');
  });
});

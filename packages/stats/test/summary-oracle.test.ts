import { describe, expect, it } from 'vitest';
import {
  type ArmSummary,
  mergeSummaries,
  proportionArm,
  srmGate,
  summarize,
  testSummaryPair,
  welchTest,
} from '../src/index.ts';
import { Draw, ORACLE_SEED, oracleDatasets } from './support/generate.ts';
import { closeTo, runOracle } from './support/oracle.ts';

// The summary forms the database will hand over, on the scipy/statsmodels oracle's own data
// sets (test/oracle.test.ts, same seed): daily summaries merged, SQL-style sums around a
// rough shift, and plain raw sums. Each must reproduce scipy to 1e-9 relative, as the
// sample-based path does.

const datasets = oracleDatasets(new Draw(ORACLE_SEED));
const conversions = datasets.filter((d) => d.kind === 'conversion');
const cases: Record<string, unknown>[] = [
  ...datasets.map((d) => ({ kind: 'welch', control: d.control, treatment: d.treatment })),
  ...conversions.map((d) => ({
    kind: 'two_proportion',
    control: { n: d.control.length, successes: d.control.reduce((a, b) => a + b, 0) },
    treatment: { n: d.treatment.length, successes: d.treatment.reduce((a, b) => a + b, 0) },
  })),
  ...datasets.map((d) => ({
    kind: 'chi_square',
    observed: [d.control.length, d.treatment.length],
    shares: [50, 50],
  })),
];
const reply = runOracle(cases);
const welchRef = reply.results.slice(0, datasets.length);
const proportionRef = reply.results.slice(datasets.length, datasets.length + conversions.length);
const srmRef = reply.results.slice(datasets.length + conversions.length);

/** Seven "days" of users, each summarised on its own, merged. */
function byDay(values: readonly number[]): ArmSummary {
  const days = Array.from({ length: 7 }, (_, day) => values.filter((_, i) => i % 7 === day));
  return mergeSummaries(...days.map(summarize));
}

/** What `SELECT count(v), sum(v - s), sum((v - s)^2)` returns in double precision. */
function sqlSums(values: readonly number[], shift: number): ArmSummary {
  let sum = 0;
  let sumSquares = 0;
  for (const v of values) {
    sum += v - shift;
    sumSquares += (v - shift) ** 2;
  }
  return { n: values.length, sum, sumSquares, shift };
}

const FORMS: Record<string, (v: readonly number[]) => ArmSummary> = {
  'daily summaries merged': byDay,
  'SQL sums around the first value': (v) => sqlSums(v, v[0] ?? 0),
  'SQL raw sums (shift 0)': (v) => sqlSums(v, 0),
};

function expectNear(actual: number, expected: unknown, what: string, abs = 1e-12) {
  expect(
    closeTo(actual, expected, 1e-9, abs),
    `${what}: ours ${actual}, scipy ${String(expected)}`,
  ).toBe(true);
}

describe('welch_t over summary forms vs scipy.stats.ttest_ind(equal_var=False) [rel 1e-9; p abs 1e-12]', () => {
  for (const [form, summarise] of Object.entries(FORMS)) {
    it(`${form}: all ${datasets.length} data sets`, () => {
      datasets.forEach((d, i) => {
        const r = welchTest(summarise(d.control), summarise(d.treatment));
        const ref = welchRef[i] as Record<string, number>;
        const width = Math.abs(r.ci_high - r.ci_low);
        expectNear(r.statistic, ref.statistic, `${d.name} t`);
        expectNear(r.df, ref.df, `${d.name} df`, 0);
        expectNear(r.p_value, ref.p_value, `${d.name} p`);
        expectNear(r.ci_low, ref.ci_low, `${d.name} ci_low`, 1e-9 * width);
        expectNear(r.ci_high, ref.ci_high, `${d.name} ci_high`, 1e-9 * width);
      });
    });
  }
});

describe('two_proportion_z from summaries of 0/1 values vs statsmodels [rel 1e-9]', () => {
  it(`all ${conversions.length} conversion data sets, merged by day`, () => {
    conversions.forEach((d, i) => {
      const r = testSummaryPair({
        method: 'two_proportion_z',
        control: byDay(d.control),
        treatment: byDay(d.treatment),
      });
      const ref = proportionRef[i] as Record<string, number>;
      expect(proportionArm(byDay(d.control)).successes).toBe(d.control.reduce((a, b) => a + b, 0));
      expectNear(r.statistic, ref.statistic, `${d.name} z`);
      expectNear(r.p_value, ref.p_value, `${d.name} p`);
      expectNear(r.ci_low, ref.ci_low, `${d.name} ci_low`, 1e-15);
      expectNear(r.ci_high, ref.ci_high, `${d.name} ci_high`, 1e-15);
    });
  });
});

describe('SRM gate over summaries vs scipy.stats.chisquare [rel 1e-9]', () => {
  it(`all ${datasets.length} arm pairs against a 50/50 split`, () => {
    datasets.forEach((d, i) => {
      const r = srmGate([byDay(d.control), byDay(d.treatment)], [50, 50]);
      const ref = srmRef[i] as Record<string, number>;
      expectNear(r.statistic, ref.statistic, `${d.name} statistic`);
      expectNear(r.p_value, ref.p_value, `${d.name} p`);
      expect(r.halted).toBe((ref.p_value as number) < 0.001);
    });
  });
});

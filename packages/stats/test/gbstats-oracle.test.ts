import { describe, expect, it } from 'vitest';
import {
  confidenceSequence,
  cupedTest,
  proportionEstimate,
  summarize,
  summarizeWithCovariate,
  welchEstimate,
} from '../src/index.ts';
import { covariateDataset, type DatasetKind, Draw, dataset } from './support/generate.ts';
import { nearWithin } from './support/near.ts';
import { GBSTATS_ORACLE, runOracle } from './support/oracle.ts';

// Golden comparisons against GrowthBook's stats engine, gbstats 0.8.0 (oracle/gbstats_oracle.py,
// pinned in oracle/requirements.txt), on generated data sets. Both sides define the same
// quantities on the absolute difference treatment − control (gbstats' difference_type
// "absolute"); gbstats' default "relative" effect is compared as a point estimate only, with
// our `lift` (the CIs differ: gbstats' relative CI is a delta-method interval of the ratio,
// we report none). Tolerance: 1e-6 relative everywhere (plus an absolute floor for values
// that are zero in expectation); achieved is far tighter, see the README.

const REL = 1e-6;
const draw = new Draw(1613);
const cupedSets = Array.from({ length: 60 }, (_, i) => covariateDataset(draw, i));
const TUNINGS = [5000, 1000, 20000];
const ALPHAS = [0.05, 0.1];
const KINDS: DatasetKind[] = ['normal', 'latency', 'tokens', 'revenue'];
const meanSets = Array.from({ length: 40 }, (_, i) =>
  dataset(draw, KINDS[i % 4] as DatasetKind, i),
);
const proportionSets = Array.from({ length: 30 }, (_, i) => {
  const d = dataset(draw, 'conversion', i);
  const arm = (v: number[]) => ({ n: v.length, successes: v.reduce((a, b) => a + b, 0) });
  return { name: d.name, control: arm(d.control), treatment: arm(d.treatment) };
});
const options = (i: number) => ({
  tuning: TUNINGS[i % TUNINGS.length] as number,
  alpha: ALPHAS[i % ALPHAS.length] as number,
});

const cases: Record<string, unknown>[] = [
  ...cupedSets.map((d, i) => ({
    kind: 'cuped',
    control: d.control,
    treatment: d.treatment,
    ...options(i),
  })),
  ...meanSets.map((d, i) => ({
    kind: 'sequential_mean',
    control: d.control,
    treatment: d.treatment,
    ...options(i),
  })),
  ...proportionSets.map((d, i) => ({ kind: 'sequential_proportion', ...d, ...options(i) })),
];
const reply = runOracle(cases, GBSTATS_ORACLE);
const oracleCuped = reply.results.slice(0, cupedSets.length);
const oracleMean = reply.results.slice(cupedSets.length, cupedSets.length + meanSets.length);
const oracleProportion = reply.results.slice(cupedSets.length + meanSets.length);

type Ref = Record<string, number | string | null>;

const near = nearWithin(REL);

function nearInterval(
  ours: { ci_low: number; ci_high: number; p_value: number },
  ref: Ref,
  what: string,
) {
  const half = Math.abs((ref.ci_high as number) - (ref.ci_low as number)) / 2;
  near(ours.ci_low, ref.ci_low, 1e-9 * half, `${what} ci_low`);
  near(ours.ci_high, ref.ci_high, 1e-9 * half, `${what} ci_high`);
  near(ours.p_value, ref.p_value, 1e-12, `${what} p`);
}

it(`gbstats answered (${JSON.stringify(reply.versions)})`, () => {
  expect(reply.results).toHaveLength(cases.length);
});

describe('CUPED vs gbstats RegressionAdjustedStatistic + TwoSidedTTest(absolute) [rel 1e-6]', () => {
  cupedSets.forEach((d, i) => {
    it(d.name, () => {
      const ref = oracleCuped[i] as Record<string, unknown>;
      const adjusted = ref.adjusted as Ref;
      const unadjusted = ref.unadjusted as Ref;
      expect(adjusted.error).toBeNull();
      const ours = cupedTest(
        summarizeWithCovariate(d.control.y, d.control.x),
        summarizeWithCovariate(d.treatment.y, d.treatment.x),
      );
      expect(ours.ok).toBe(true);
      const scale = Math.sqrt(adjusted.variance as number);
      near(ours.cuped.theta, ref.theta, 1e-12, 'theta');
      near(ours.effect, adjusted.effect, 1e-9 * scale, 'adjusted effect');
      near(ours.estimate?.variance ?? Number.NaN, adjusted.variance, 0, 'adjusted variance');
      near(ours.df, adjusted.dof, 0, 'df');
      nearInterval(ours, adjusted, 'adjusted');
      near(ours.unadjusted.effect, unadjusted.effect, 1e-9 * scale, 'unadjusted effect');
      nearInterval(ours.unadjusted, unadjusted, 'unadjusted');
      const reduction = 1 - (adjusted.variance as number) / (unadjusted.variance as number);
      near(ours.cuped.variance_reduction, reduction, 1e-9, 'variance_reduction');
      near(ours.lift ?? Number.NaN, ref.relative_effect, 1e-12, 'lift vs relative effect');
      const seq = confidenceSequence(ours.estimate!, options(i));
      nearInterval(seq, ref.sequential as Ref, 'sequential');
      const withPre = [...d.control.x, ...d.treatment.x].filter((x) => x !== null).length;
      expect(ours.cuped.covariate_coverage).toBe(
        withPre / (d.control.x.length + d.treatment.x.length),
      );
    });
  });

  it('a real covariate narrows the interval; a useless one costs nothing', () => {
    const strong = cupedSets.filter(
      (d) => d.name.includes('signal 0.95') && d.name.includes('coverage 1,'),
    );
    expect(strong.length).toBeGreaterThan(0);
    for (const d of strong) {
      const r = cupedTest(
        summarizeWithCovariate(d.control.y, d.control.x),
        summarizeWithCovariate(d.treatment.y, d.treatment.x),
      );
      expect(r.ci_high - r.ci_low).toBeLessThan(0.6 * (r.unadjusted.ci_high - r.unadjusted.ci_low));
      expect(r.cuped.variance_reduction).toBeGreaterThan(0.6);
    }
  });
});

describe('confidence sequence vs gbstats SequentialTwoSidedTTest(absolute) [rel 1e-6]', () => {
  meanSets.forEach((d, i) => {
    it(`${d.name}, tuning ${options(i).tuning}, alpha ${options(i).alpha}`, () => {
      const estimate = welchEstimate(summarize(d.control), summarize(d.treatment));
      expect(estimate).not.toBeNull();
      nearInterval(confidenceSequence(estimate!, options(i)), oracleMean[i] as Ref, 'mean');
    });
  });
  proportionSets.forEach((d, i) => {
    it(`${d.name}, tuning ${options(i).tuning}, alpha ${options(i).alpha}`, () => {
      const estimate = proportionEstimate(d.control, d.treatment);
      expect(estimate).not.toBeNull();
      nearInterval(
        confidenceSequence(estimate!, options(i)),
        oracleProportion[i] as Ref,
        'proportion',
      );
    });
  });
});

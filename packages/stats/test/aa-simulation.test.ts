import { describe, expect, it } from 'vitest';
import {
  type ArmSummary,
  confidenceSequence,
  decidePairs,
  type Estimate,
  mergeSummaries,
  type PairPValues,
  proportionArm,
  proportionEstimate,
  summarize,
  twoProportionZTest,
  welchEstimate,
  welchTest,
} from '../src/index.ts';
import { Draw } from './support/generate.ts';

// Why manual runs decide on the sequential p-value. Seeded A/A experiments (no metric has an
// effect), each "peeked" PEEKS times as users arrive, exactly as repeated manual `analyze`
// runs would: at every peek the run's three metrics get BH, and the experiment counts as a
// false positive if any peek calls any metric significant. Nominal level α = 0.05.
// Allowance: with E experiments the count of false positives under a procedure whose true
// rate is exactly α is Binomial(E, α); a count above its 99.9th percentile would mean the
// rate exceeds α (one-sided binomial test at 0.001). The sequential procedure must stay at
// or under that; the fixed-horizon one, peeked the same way, must exceed it.

const EXPERIMENTS = 400;
const PEEKS = 20;
const USERS_PER_PEEK = 50; // per arm: 1,000 per arm at the last peek
const ALPHA = 0.05;

type MetricKind = 'normal' | 'revenue' | 'conversion';
const METRICS: MetricKind[] = ['normal', 'revenue', 'conversion'];

function user(d: Draw, kind: MetricKind, effect: number): number {
  switch (kind) {
    case 'normal':
      return d.normal(100 + effect * 20, 20);
    case 'revenue':
      return d.uniform() < 0.8 ? 0 : Math.round(d.lognormal(Math.log(20), 1) * 100) / 100;
    case 'conversion':
      return d.bernoulli(0.05);
  }
}

function pValues(kind: MetricKind, c: ArmSummary, t: ArmSummary): PairPValues {
  let fixed: { ok: boolean; p_value: number };
  let estimate: Estimate | null;
  if (kind === 'conversion') {
    fixed = twoProportionZTest(proportionArm(c), proportionArm(t));
    estimate = proportionEstimate(proportionArm(c), proportionArm(t));
  } else {
    fixed = welchTest(c, t);
    estimate = welchEstimate(c, t);
  }
  const sequential = estimate ? confidenceSequence(estimate, { alpha: ALPHA }).p_value : 1;
  return { ok: fixed.ok, p_value: fixed.p_value, sequential_p_value: sequential };
}

interface Outcome {
  fixed: boolean;
  sequential: boolean;
}

/** One experiment peeked PEEKS times; which procedures ever declared something significant. */
function simulate(d: Draw, effect: number): Outcome {
  const arms = METRICS.map(() => ({ control: summarize([]), treatment: summarize([]) }));
  const outcome = { fixed: false, sequential: false };
  for (let peek = 0; peek < PEEKS; peek++) {
    const pairs = METRICS.map((kind, m) => {
      const arm = arms[m] as { control: ArmSummary; treatment: ArmSummary };
      // Each peek's new users arrive as a daily summary merged into the window's.
      arm.control = mergeSummaries(
        arm.control,
        summarize(d.many(USERS_PER_PEEK, () => user(d, kind, 0))),
      );
      arm.treatment = mergeSummaries(
        arm.treatment,
        summarize(d.many(USERS_PER_PEEK, () => user(d, kind, effect))),
      );
      return pValues(kind, arm.control, arm.treatment);
    });
    if (decidePairs(pairs, 'fixed').some((r) => r.significant)) outcome.fixed = true;
    if (decidePairs(pairs, 'sequential').some((r) => r.significant)) outcome.sequential = true;
  }
  return outcome;
}

/** Smallest k with P(Binomial(n, p) <= k) >= q. */
function binomialQuantile(n: number, p: number, q: number): number {
  let logPmf = n * Math.log(1 - p);
  let cdf = Math.exp(logPmf);
  for (let k = 0; k < n; k++) {
    if (cdf >= q) return k;
    logPmf += Math.log((n - k) / (k + 1)) + Math.log(p / (1 - p));
    cdf += Math.exp(logPmf);
  }
  return n;
}

const draw = new Draw(16_2026);
const aa = Array.from({ length: EXPERIMENTS }, () => simulate(draw, 0));
const fixedHits = aa.filter((o) => o.fixed).length;
const sequentialHits = aa.filter((o) => o.sequential).length;
const bound = binomialQuantile(EXPERIMENTS, ALPHA, 0.999);

describe(`A/A: ${EXPERIMENTS} experiments × ${PEEKS} peeks × ${METRICS.length} metrics with BH (allowance: ${bound}/${EXPERIMENTS}, the 99.9th percentile of Binomial(${EXPERIMENTS}, ${ALPHA}))`, () => {
  it(`sequential p after BH: ${sequentialHits}/${EXPERIMENTS} ever significant, within the nominal level`, () => {
    expect(sequentialHits).toBeLessThanOrEqual(bound);
  });

  it(`fixed-horizon p after BH, peeked the same way: ${fixedHits}/${EXPERIMENTS} ever significant, above it`, () => {
    expect(fixedHits).toBeGreaterThan(bound);
  });
});

describe('the sequential test still finds a real effect', () => {
  const powered = new Draw(99);
  // 0.25 sd on the normal metric: about 5.6 standard errors at the last peek. The sequence
  // pays for peeking with width (here at N = 2,000 against the default tuning of 5,000).
  const runs = Array.from({ length: 40 }, () => simulate(powered, 0.25));
  const found = runs.filter((o) => o.sequential).length;
  it(`${found}/40 experiments with a 0.25 sd effect turn significant by the last peek`, () => {
    expect(found).toBeGreaterThanOrEqual(30);
  });
});

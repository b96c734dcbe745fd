import { describe, expect, it } from 'vitest';
import type { MetricInput } from '../../../src/analysis/compute/compute-run.ts';
import { type GuardInputs, guardVerdict } from '../../../src/analysis/guard/guard-verdict.ts';
import type { MetricDefinition } from '../../../src/schemas/experiment-config.ts';

/**
 * False alarms of the guard: A/A ramps (the treatment changes nothing) fed to the guard's own
 * decision function as the cumulative counts it would read every five minutes. The
 * always-valid test may be looked at after every evaluation and still rolls back at most 5 %
 * of the ramps; the plain fixed-horizon Welch test at 0.05, looked at as often on the same
 * data, rolls back far more.
 */
const RAMPS = 1000;
const EVALUATIONS = 200;
/** New eligible users per evaluation at full coverage, and the ramp's steps. */
const USERS_PER_EVALUATION = 2000;
const STEPS = [0.01, 0.05, 0.25, 0.5, 1];
const ERROR_RATE = 0.05;
/** 5 % plus three binomial standard errors at 1,000 ramps. */
const BOUND = 0.05 + 3 * Math.sqrt((0.05 * 0.95) / RAMPS);

/** mulberry32: a seeded uniform stream, so the test sees the same ramps on every run. */
function uniform(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A binomial draw: by inversion of its CDF while n·p·(1 − p) is small, else the normal
 * approximation rounded and clamped (q^n underflows long before n reaches the arrivals here).
 */
function binomial(next: () => number, n: number, p: number): number {
  if (n === 0) return 0;
  const q = 1 - p;
  if (n * p * q > 30) {
    const z = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    return Math.min(n, Math.max(0, Math.round(n * p + z * Math.sqrt(n * p * q))));
  }
  let pk = q ** n;
  let cdf = pk;
  const u = next();
  let k = 0;
  while (u > cdf && k < n) {
    pk *= ((n - k) / (k + 1)) * (p / q);
    k++;
    cdf += pk;
  }
  return k;
}

const ERRORS: MetricDefinition = {
  name: 'errors',
  kind: 'error_rate',
  category: 'guardrail',
  method_default: 'welch_t',
  metric_version: 1,
  shared_org_wide: false,
};

/** The cumulative counts of one ramp at one evaluation, as the guard reads them. */
function inputsOf(users: [number, number], errors: [number, number]): GuardInputs {
  const arm = (i: 0 | 1) => ({
    n: users[i],
    nWithCovariate: 0,
    sumX: 0,
    sumY: errors[i],
    sumXX: 0,
    sumYY: errors[i],
    sumXY: 0,
  });
  const metric: MetricInput = {
    definition: ERRORS,
    method: 'welch_t',
    overridden: false,
    stats: { arms: { control: arm(0), treatment: arm(1) }, histograms: {} },
    samples: null,
    quantiles: null,
  };
  return {
    control: 'control',
    shares: { control: 0.5, treatment: 0.5 },
    arms: {
      control: { users: users[0], events: users[0] },
      treatment: { users: users[1], events: users[1] },
    },
    metrics: [metric],
    plan: { max_permutations: 0, max_sample_per_arm: 0 },
    minEventsPerArm: 100,
    sequentialTuning: 5000,
  };
}

/**
 * The plain fixed-horizon test at 0.05 on every ramp at once: Welch's z (large samples) of the
 * difference of the error rates, worse when it exceeds 1.96 on the worse side. Sets `worse[r]`
 * for each ramp it would have rolled back.
 */
function fixedHorizonLook(
  users: readonly [Float64Array, Float64Array],
  errors: readonly [Float64Array, Float64Array],
  worse: Uint8Array,
): void {
  for (let r = 0; r < RAMPS; r++) {
    const nc = users[0][r] as number;
    const nt = users[1][r] as number;
    if (nc < 100 || nt < 100) continue;
    const pc = (errors[0][r] as number) / nc;
    const pt = (errors[1][r] as number) / nt;
    const variance = (pc * (1 - pc)) / (nc - 1) + (pt * (1 - pt)) / (nt - 1);
    if (variance > 0 && (pt - pc) / Math.sqrt(variance) > 1.959964) worse[r] = 1;
  }
}

/**
 * Every ramp through its evaluations, all ramps advancing together (one typed array per
 * count): the coverage rises a step every EVALUATIONS / STEPS evaluations, each new user falls
 * in either arm with probability ½ and errs with the same probability in both.
 */
function simulate(seed: number) {
  const next = uniform(seed);
  const users = [new Float64Array(RAMPS), new Float64Array(RAMPS)] as const;
  const errors = [new Float64Array(RAMPS), new Float64Array(RAMPS)] as const;
  const rolledBack = new Uint8Array(RAMPS);
  const srmPaused = new Uint8Array(RAMPS);
  const fixedWorse = new Uint8Array(RAMPS);
  const perStep = EVALUATIONS / STEPS.length;
  for (let e = 0; e < EVALUATIONS; e++) {
    const arriving = USERS_PER_EVALUATION * (STEPS[Math.floor(e / perStep)] as number);
    for (let r = 0; r < RAMPS; r++) {
      const treated = binomial(next, arriving, 0.5);
      const u: [number, number] = [
        (users[0][r] as number) + arriving - treated,
        (users[1][r] as number) + treated,
      ];
      const x: [number, number] = [
        (errors[0][r] as number) + binomial(next, arriving - treated, ERROR_RATE),
        (errors[1][r] as number) + binomial(next, treated, ERROR_RATE),
      ];
      [users[0][r], users[1][r], errors[0][r], errors[1][r]] = [u[0], u[1], x[0], x[1]];
      if (rolledBack[r]) continue;
      const verdict = guardVerdict(inputsOf(u, x));
      if (verdict.readings.some((g) => g.worse)) rolledBack[r] = 1;
      if (verdict.srmFailed) srmPaused[r] = 1;
    }
    fixedHorizonLook(users, errors, fixedWorse);
  }
  const rate = (a: Uint8Array) => a.reduce((s, v) => s + v, 0) / RAMPS;
  return { rolledBack: rate(rolledBack), srmPaused: rate(srmPaused), fixed: rate(fixedWorse) };
}

describe('the guard on 1,000 A/A ramps of 200 evaluations each', () => {
  const result = simulate(20_261_129);

  it('rolls back at most 5 % of them, within the binomial margin', () => {
    expect(result.rolledBack).toBeLessThanOrEqual(BOUND);
  });

  it('where a fixed-horizon test at 0.05, looked at as often, exceeds that bound', () => {
    expect(result.fixed).toBeGreaterThan(BOUND);
    expect(result.fixed).toBeGreaterThan(4 * result.rolledBack);
  });

  it('pauses few of them on the SRM check, which is not always-valid', () => {
    expect(result.srmPaused).toBeLessThanOrEqual(BOUND);
  });
});

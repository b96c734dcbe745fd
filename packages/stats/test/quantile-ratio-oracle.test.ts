import { describe, expect, it } from 'vitest';
import {
  quantileLevel,
  quantileRanks,
  quantileTest,
  ratioTest,
  summarizeQuantileArm,
  summarizeWithCovariate,
} from '../src/index.ts';
import { Draw } from './support/generate.ts';
import { nearWithin } from './support/near.ts';
import { GBSTATS_ORACLE, runOracle } from './support/oracle.ts';

// Quantile and ratio metrics against GrowthBook's stats engine, gbstats 0.8.0
// (QuantileClusteredStatistic and RatioStatistic with TwoSidedTTest, absolute), on generated
// model-call data: skewed latency (log-normal), heavy ties, tiny arms (fewer than 100 users)
// and zero denominators. The oracle sums the raw per-user data itself and computes the
// order-statistic ranks in decimals, so our summaries and our integer ranks are checked too.
// Tolerance: 1e-9 relative (CI ends relative to the half-width, p-values 1e-12 absolute).

const REL = 1e-9;
const draw = new Draw(2711);

type Users = number[][];
interface QuantileCase {
  name: string;
  q: number;
  control: Users;
  treatment: Users;
}
interface RatioArm {
  m: number[];
  d: number[];
}
interface RatioCase {
  name: string;
  control: RatioArm;
  treatment: RatioArm;
}

const LEVELS = [0.5, 0.9, 0.95, 0.99, 0.9512, 0.75];
const SHAPES = ['lognormal latency', 'heavy ties', 'tiny arm', 'integer tokens'] as const;

/** One arm's users, each with a Poisson number of calls (some none), values of the shape. */
function callUsers(shape: (typeof SHAPES)[number], users: number, scale: number): Users {
  const value = () => {
    if (shape === 'lognormal latency') return draw.lognormal(6.2, 0.9) * scale;
    if (shape === 'heavy ties') return draw.pick([120, 250, 250, 400, 800]) * scale;
    if (shape === 'integer tokens') return Math.round(draw.lognormal(5, 0.6) * scale);
    return Math.round(draw.lognormal(6, 0.7) * scale);
  };
  return Array.from({ length: users }, () => draw.many(draw.poisson(2.5), value));
}

// The last two are too small for a 99th percentile's bounds: gbstats refuses them.
const quantileCases: QuantileCase[] = Array.from({ length: 26 }, (_, i) => {
  const shape = i < 24 ? (SHAPES[i % SHAPES.length] as (typeof SHAPES)[number]) : 'tiny arm';
  const q = i < 24 ? (LEVELS[i % LEVELS.length] as number) : 0.99;
  const users = shape === 'tiny arm' ? draw.int(30, 95) : draw.int(300, 2500);
  const lift = i % 3 === 0 ? 1 : 1.08;
  return {
    name: `${shape}, q ${q}, ${users} users, scale ${lift}`,
    q,
    control: callUsers(shape, users, 1),
    treatment: callUsers(shape, users + draw.int(-20, 20), lift),
  };
});

/** Per user: cost over calls, errors over calls, tokens over conversions (zeros included). */
function ratioArm(kind: number, users: number, lift: number, zeroDenominator: boolean): RatioArm {
  const m: number[] = [];
  const d: number[] = [];
  for (let u = 0; u < users; u++) {
    const calls = draw.poisson(kind === 2 ? 3 : 1.7);
    const cost = draw.many(calls, () => draw.lognormal(-6, 0.8) * lift);
    if (kind === 0) {
      m.push(cost.reduce((a, b) => a + b, 0));
      d.push(calls);
    } else if (kind === 1) {
      m.push(draw.many(calls, () => draw.bernoulli(0.08 * lift)).reduce((a, b) => a + b, 0));
      d.push(calls);
    } else {
      m.push(
        draw
          .many(calls, () => Math.round(draw.lognormal(5.5, 0.5) * lift))
          .reduce((a, b) => a + b, 0),
      );
      d.push(zeroDenominator ? 0 : draw.poisson(0.4));
    }
  }
  return { m, d };
}

const ratioCases: RatioCase[] = Array.from({ length: 24 }, (_, i) => {
  const kind = i % 3;
  const users = i % 4 === 3 ? draw.int(20, 90) : draw.int(400, 3000);
  const zero = i === 23;
  return {
    name: `${['cost per call', 'errors per call', 'tokens per conversion'][kind]}, ${users} users${zero ? ', no conversions in treatment' : ''}`,
    control: ratioArm(kind, users, 1, false),
    treatment: ratioArm(kind, users + draw.int(-10, 10), i % 2 ? 1.1 : 1, zero),
  };
});

const reply = runOracle(
  [
    ...quantileCases.map((c) => ({ kind: 'quantile', ...c })),
    ...ratioCases.map((c) => ({ kind: 'ratio', ...c })),
  ],
  GBSTATS_ORACLE,
);
type Ref = Record<string, unknown>;
const oracleQuantile = reply.results.slice(0, quantileCases.length) as Ref[];
const oracleRatio = reply.results.slice(quantileCases.length) as Ref[];

const near = nearWithin(REL);

/** Ours against gbstats' absolute test (and its relative point estimate as our lift). */
function matches(
  ours: {
    ok: boolean;
    effect: number;
    ci_low: number;
    ci_high: number;
    p_value: number;
    df: number;
    lift: number | null;
  },
  ref: Ref,
) {
  if (ref.error) {
    expect(ours.ok, `gbstats refused: ${String(ref.error)}`).toBe(false);
    return;
  }
  expect(ours.ok).toBe(true);
  const half = Math.abs((ref.ci_high as number) - (ref.ci_low as number)) / 2;
  near(ours.effect, ref.effect, REL * half, 'effect');
  near(ours.ci_low, ref.ci_low, REL * half, 'ci_low');
  near(ours.ci_high, ref.ci_high, REL * half, 'ci_high');
  near(ours.p_value, ref.p_value, 1e-12, 'p');
  near(ours.df, ref.dof, 0, 'df');
  near(ours.lift ?? Number.NaN, ref.relative_effect, 1e-12, 'lift vs relative effect');
}

it(`gbstats answered (${JSON.stringify(reply.versions)})`, () => {
  expect(reply.results).toHaveLength(quantileCases.length + ratioCases.length);
});

describe('quantile metrics vs gbstats QuantileClusteredStatistic + TwoSidedTTest [rel 1e-9]', () => {
  quantileCases.forEach((c, i) => {
    it(c.name, () => {
      const ref = oracleQuantile[i] as Ref;
      const level = quantileLevel(c.q) as number;
      for (const arm of ['control', 'treatment'] as const) {
        const calls = c[arm].flat().length;
        const r = quantileRanks(calls, level);
        const expected = (ref[arm] as { ranks: number[]; quantile: number }).ranks;
        expect([r.estimate, r.lower, r.upper], `${arm} ranks`).toEqual(expected);
      }
      const control = summarizeQuantileArm(c.control, level);
      const treatment = summarizeQuantileArm(c.treatment, level);
      expect(control.estimate).toBe((ref.control as { quantile: number }).quantile);
      const ours = quantileTest(control, treatment, level);
      matches(ours, ref);
      expect([ours.n_control, ours.n_treatment]).toEqual([c.control.length, c.treatment.length]);
      expect([ours.calls_control, ours.calls_treatment]).toEqual([
        c.control.flat().length,
        c.treatment.flat().length,
      ]);
    });
  });

  it('at least 20 sets were tested, and the refusals agreed on', () => {
    const refused = oracleQuantile.filter((r) => r.error).length;
    expect(quantileCases.length - refused).toBeGreaterThanOrEqual(20);
    expect(refused).toBeGreaterThanOrEqual(2);
  });
});

describe('ratio metrics vs gbstats RatioStatistic + TwoSidedTTest [rel 1e-9]', () => {
  ratioCases.forEach((c, i) => {
    it(c.name, () => {
      const ref = oracleRatio[i] as Ref;
      const ours = ratioTest(
        summarizeWithCovariate(c.control.m, c.control.d),
        summarizeWithCovariate(c.treatment.m, c.treatment.d),
      );
      matches(ours, ref);
      near(ours.ratio_control, ref.ratio_control, 0, 'control ratio');
      near(ours.ratio_treatment, ref.ratio_treatment, 0, 'treatment ratio');
      expect([ours.n_control, ours.n_treatment]).toEqual([
        c.control.m.length,
        c.treatment.m.length,
      ]);
    });
  });

  it('at least 20 sets were tested', () => {
    expect(oracleRatio.filter((r) => !r.error).length).toBeGreaterThanOrEqual(20);
  });

  it('an arm whose denominators sum to 0 has no ratio and says why', () => {
    const zero = ratioCases.findIndex((c) => c.treatment.d.every((d) => d === 0));
    expect(zero).toBeGreaterThanOrEqual(0);
    const c = ratioCases[zero] as RatioCase;
    const ours = ratioTest(
      summarizeWithCovariate(c.control.m, c.control.d),
      summarizeWithCovariate(c.treatment.m, c.treatment.d),
    );
    expect(ours).toMatchObject({ ok: false, reason: 'zero_denominator', p_value: 1 });
    expect((oracleRatio[zero] as Ref).error).toBeTruthy();
  });
});

import {
  benjaminiHochberg,
  histogram,
  summarize,
  summarizeWithCovariate,
  welchTest,
  Z_80,
  Z_975,
} from '@arbiter/stats';
import { describe, expect, it } from 'vitest';
import {
  computeRun,
  type MetricInput,
  type RunInputs,
} from '../../../src/analysis/compute/compute-run.ts';
import type { MetricDefinition } from '../../../src/schemas/experiment-config.ts';
import { metricDefinition, seeded } from '../../support/analysis-data.ts';

/** computeRun alone: no database, inputs built from arrays with the stats package's summaries. */
const rng = seeded(2026);
const normals = (n: number, mean: number, sd: number) =>
  Array.from({ length: n }, () => rng.normal(mean, sd));

const definition = metricDefinition;

/** A metric input from per-arm values (and covariates), as the read module would deliver it. */
function metricInput(
  def: MetricDefinition,
  arms: Record<string, number[]>,
  options: {
    covariates?: Record<string, (number | null)[]>;
    method?: MetricInput['method'];
    samples?: MetricInput['samples'];
  } = {},
): MetricInput {
  const summaries = Object.fromEntries(
    Object.entries(arms).map(([a, v]) => [
      a,
      summarizeWithCovariate(v, options.covariates?.[a] ?? v.map(() => null)),
    ]),
  );
  return {
    definition: def,
    method: options.method ?? (def.method_default as MetricInput['method']),
    overridden: options.method !== undefined,
    stats: {
      arms: summaries,
      histograms: {
        treatment: histogram({ control: arms.control ?? [], treatment: arms.treatment ?? [] }),
      },
    },
    samples: options.samples ?? null,
    quantiles: null,
  };
}

function inputs(metrics: MetricInput[], overrides: Partial<RunInputs> = {}): RunInputs {
  return {
    label: '2026-11-21',
    kind: 'nightly',
    windowStart: new Date('2026-11-20T00:00:00Z'),
    windowEnd: new Date('2026-11-22T00:00:00Z'),
    windowDays: 2,
    control: 'control',
    shares: { control: 0.5, treatment: 0.5 },
    arms: { control: { users: 1000, events: 1000 }, treatment: { users: 1000, events: 1000 } },
    metrics,
    retentionTruncated: false,
    plan: { max_permutations: 1000, max_sample_per_arm: 10_000 },
    minEventsPerArm: 200,
    sequentialTuning: 5000,
    arrivals: { days: 2, newUsers: { control: 400, treatment: 300 } },
    ...overrides,
  };
}

describe('computeRun', () => {
  const latency = metricInput(definition('latency', 'latency'), {
    control: normals(1000, 500, 60),
    treatment: normals(1000, 490, 60),
  });
  const tokens = metricInput(definition('tokens', 'tokens'), {
    control: normals(1000, 300, 80),
    treatment: normals(1000, 300, 80),
  });

  it('stays collecting below the evaluated-events threshold and computes nothing', () => {
    const run = computeRun(
      inputs([latency], {
        arms: { control: { users: 150, events: 199 }, treatment: { users: 150, events: 250 } },
      }),
    );
    expect(run.status).toBe('collecting');
    expect(run.results).toEqual({});
    expect(run.srm.p_value).toBeNull();
    expect(run.decision).toEqual({
      recommendation: 'keep_collecting',
      treatment: null,
      reasons: ['Collecting: control has 199 of 200 evaluated events.'],
    });
  });

  it('halts on a sample-ratio mismatch and withholds the metrics', () => {
    const run = computeRun(
      inputs([latency], {
        arms: { control: { users: 1000, events: 1000 }, treatment: { users: 800, events: 800 } },
      }),
    );
    expect(run.status).toBe('srm_halted');
    expect(run.decision.recommendation).toBe('halted');
    expect(run.srm.halted).toBe(true);
    expect(run.srm.p_value).toBeLessThan(0.001);
    expect(run.results).toEqual({});
  });

  it('tests every pair, corrects across the run with BH and decides nightly runs on it', () => {
    const run = computeRun(inputs([latency, tokens]));
    expect(run.status).toBe('computed');
    const l = run.results['latency::treatment'];
    const t = run.results['tokens::treatment'];
    const bh = benjaminiHochberg([l?.p_value as number, t?.p_value as number]);
    expect(l?.p_value_fdr).toBe(bh[0]);
    expect(t?.p_value_fdr).toBe(bh[1]);
    expect(l?.significant).toBe((l?.p_value_fdr as number) < 0.05);
    expect(l?.sequential).toBeNull();
    expect(l?.preliminary).toBe(false);
    expect(l?.n_per_arm).toEqual({ control: 1000, treatment: 1000 });
    expect(l?.srm_p).toBe(run.srm.p_value);
    expect(l?.distribution.bin_edges).toHaveLength(21);
  });

  it('on a manual run reports the confidence sequence and decides on its BH p-value', () => {
    const run = computeRun(inputs([latency, tokens], { kind: 'manual', label: 'manual-x' }));
    const l = run.results['latency::treatment'];
    expect(l?.preliminary).toBe(true);
    const seq = l?.sequential;
    expect(seq).not.toBeNull();
    // The always-valid interval is wider than the fixed-horizon one and its p larger.
    expect((seq?.ci_high as number) - (seq?.ci_low as number)).toBeGreaterThan(
      (l?.ci_high as number) - (l?.ci_low as number),
    );
    expect(seq?.p_value).toBeGreaterThan(l?.p_value as number);
    const bh = benjaminiHochberg([
      seq?.p_value as number,
      run.results['tokens::treatment']?.sequential?.p_value as number,
    ]);
    expect(seq?.p_value_fdr).toBe(bh[0]);
    expect(l?.significant).toBe((bh[0] as number) < 0.05);
  });

  it('a pair significant at the fixed horizon but not sequentially is not significant on a manual run', () => {
    // The same spread, 12 ms apart: z ≈ 2.8 at the fixed horizon, inside the sequence's width.
    const control = normals(400, 500, 60);
    const m = metricInput(definition('small', 'latency'), {
      control,
      treatment: control.map((x) => x - 12),
    });
    const nightly = computeRun(inputs([m])).results['small::treatment'];
    const manual = computeRun(inputs([m], { kind: 'manual' })).results['small::treatment'];
    expect(nightly?.p_value_fdr).toBeLessThan(0.05);
    expect(nightly?.significant).toBe(true);
    expect(manual?.sequential?.p_value_fdr).toBeGreaterThanOrEqual(0.05);
    expect(manual?.significant).toBe(false);
  });

  it('calls a significant effect better or worse by the metric’s direction, else inconclusive', () => {
    const control = normals(1000, 500, 60);
    const faster = control.map((x) => x - 30);
    const run = computeRun(
      inputs([
        metricInput(definition('latency', 'latency'), { control, treatment: faster }),
        metricInput(definition('speed', 'value'), { control, treatment: faster }),
        metricInput(definition('wait', 'value', { direction: 'decrease' }), {
          control,
          treatment: faster,
        }),
        metricInput(definition('tokens', 'tokens'), { control, treatment: control }),
      ]),
    );
    const of = (m: string) => run.results[`${m}::treatment`];
    expect(of('latency')?.significant).toBe(true);
    expect(of('latency')?.direction).toBe('decrease');
    expect(of('latency')?.outcome).toBe('better');
    expect(of('speed')?.direction).toBe('increase');
    expect(of('speed')?.outcome).toBe('worse');
    expect(of('wait')?.direction).toBe('decrease');
    expect(of('wait')?.outcome).toBe('better');
    expect(of('tokens')?.significant).toBe(false);
    expect(of('tokens')?.outcome).toBe('inconclusive');
    // Every metric is primary here, and speed is worse: the run keeps control.
    expect(run.decision.recommendation).toBe('keep_control');
    const lift = `${((of('speed')?.lift as number) * 100).toFixed(1)}%`;
    expect(run.decision.reasons).toContain(
      `treatment: primary speed is worse (${lift}); primary latency is better (${lift}); primary wait is better (${lift}); tokens inconclusive.`,
    );
  });

  it('on a manual run leaves a fixed-horizon-only effect inconclusive', () => {
    const control = normals(400, 500, 60);
    const m = metricInput(definition('small', 'latency'), {
      control,
      treatment: control.map((x) => x - 12),
    });
    expect(computeRun(inputs([m])).results['small::treatment']?.outcome).toBe('better');
    const manual = computeRun(inputs([m], { kind: 'manual' })).results['small::treatment'];
    expect(manual?.p_value_fdr).toBeLessThan(0.05);
    expect(manual?.outcome).toBe('inconclusive');
  });

  it('estimates users and days to a decision for the primary metrics of a keep_collecting run', () => {
    const control = normals(1000, 500, 60);
    const treatment = normals(1000, 500, 70);
    const variance = (v: number[]) => {
      const mean = v.reduce((a, b) => a + b, 0) / v.length;
      return v.reduce((a, x) => a + (x - mean) ** 2, 0) / (v.length - 1);
    };
    const meanC = control.reduce((a, b) => a + b, 0) / control.length;
    const primary = metricInput(definition('latency', 'latency', { mde: 0.01 }), {
      control,
      treatment,
    });
    const guard = metricInput(definition('tokens', 'tokens', { category: 'guardrail' }), {
      control,
      treatment,
    });
    const run = computeRun(
      inputs([primary, guard], {
        // 500 latency users of 1000 exposed: the metric reaches half of each arm's arrivals.
        arms: { control: { users: 2000, events: 2000 }, treatment: { users: 2000, events: 2000 } },
        shares: { control: 0.5, treatment: 0.5 },
        arrivals: { days: 2, newUsers: { control: 400, treatment: 100 } },
      }),
    );
    expect(run.decision.recommendation).toBe('keep_collecting');
    const r = run.results['latency::treatment'];
    const needed = Math.ceil(
      ((Z_975 + Z_80) ** 2 * (variance(control) + variance(treatment))) / (0.01 * meanC) ** 2,
    );
    expect(r?.mde).toBe(0.01);
    expect(r?.users_needed_per_arm).toBe(needed);
    // Per day the treatment arm gains 100 / 2 exposed users, of whom 1000/2000 have a latency.
    const days = Math.ceil(Math.max((needed - 1000) / (200 * 0.5), (needed - 1000) / (50 * 0.5)));
    expect(r?.days_to_decision).toBe(days);
    expect(run.results['tokens::treatment']?.users_needed_per_arm).toBeUndefined();
  });

  it('leaves days to a decision null when no user arrived lately, and estimates nothing once decided', () => {
    const m = metricInput(definition('latency', 'latency'), {
      control: normals(100, 500, 300),
      treatment: normals(100, 500, 300),
    });
    const quiet = computeRun(
      inputs([m], { arrivals: { days: 7, newUsers: { control: 0, treatment: 20 } } }),
    ).results['latency::treatment'];
    expect(quiet?.mde).toBe(0.05);
    expect(quiet?.users_needed_per_arm).toBeGreaterThan(0);
    expect(quiet?.days_to_decision).toBeNull();
    const control = normals(1000, 500, 60);
    const decided = metricInput(definition('latency', 'latency'), {
      control,
      treatment: control.map((x) => x - 30),
    });
    const shipped = computeRun(inputs([decided]));
    expect(shipped.decision.recommendation).toBe('ship');
    expect(shipped.results['latency::treatment']?.users_needed_per_arm).toBeUndefined();
  });

  it('adjusts a CUPED metric: report beside the unadjusted test, narrower interval', () => {
    const pre = { control: normals(1000, 50, 20), treatment: normals(1000, 50, 20) };
    const arms = {
      control: pre.control.map((x) => x + rng.normal(0, 5)),
      treatment: pre.treatment.map((x) => x + 1 + rng.normal(0, 5)),
    };
    const covariates = {
      control: pre.control.map((x, i) => (i % 10 === 0 ? null : x)),
      treatment: pre.treatment.map((x, i) => (i % 10 === 0 ? null : x)),
    };
    const m = metricInput(
      definition('revenue', 'revenue', { cuped: { covariate_days: 7 } }),
      arms,
      {
        covariates,
      },
    );
    const r = computeRun(inputs([m])).results['revenue::treatment'];
    expect(r?.cuped?.covariate_coverage).toBeCloseTo(0.9, 12);
    expect(r?.cuped?.theta).toBeGreaterThan(0.5);
    expect(r?.cuped?.variance_reduction).toBeGreaterThan(0.3);
    const u = r?.unadjusted;
    expect((r?.ci_high as number) - (r?.ci_low as number)).toBeLessThan(
      (u?.ci_high as number) - (u?.ci_low as number),
    );
    expect(u?.effect).toBe(welchTest(summarize(arms.control), summarize(arms.treatment)).effect);
  });

  it('runs Mann–Whitney on the capped samples and takes effect and CI from the full arms', () => {
    const control = normals(1000, 500, 60);
    const treatment = normals(1000, 480, 60);
    const m = metricInput(
      definition('latency', 'latency'),
      { control, treatment },
      {
        method: 'mann_whitney',
        samples: {
          values: { control: control.slice(0, 100), treatment: treatment.slice(0, 100) },
          capUsed: true,
        },
      },
    );
    const r = computeRun(inputs([m])).results['latency::treatment'];
    const full = welchTest(summarize(control), summarize(treatment));
    expect(r?.test).toBe('mann_whitney');
    expect(r?.sample_cap_used).toBe(true);
    expect(r?.method_overridden).toBe(true);
    expect(r?.effect).toBe(full.effect);
    expect(r?.ci_low).toBe(full.ci_low);
    expect(r?.n_per_arm).toEqual({ control: 1000, treatment: 1000 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GBSTATS_ORACLE, runOracle } from '../../../../packages/stats/test/support/oracle.ts';
import type { Results } from '../../src/analysis/results/results-schema.ts';
import { importAll, ingestAll, runNightlyFor, seeded, today } from '../support/analysis-data.ts';
import { type Harness, startHarness } from '../support/harness.ts';

/**
 * Capping through the HTTP API: per-user values with planted outliers go in through the real
 * ingest path, the nightly run caps them in SQL, and every number equals an oracle that takes
 * numpy's default quantile (linear, as percentile_cont) of both arms' values pooled, clips the
 * values, and hands them to today's Welch (scipy) and CUPED (gbstats) oracles. 1e-9 relative.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

const ARMS = ['control', 'treatment'] as const;
type Arm = (typeof ARMS)[number];
const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString();
const base = { category: 'primary', metric_version: 1, shared_org_wide: false } as const;
const metric = (name: string, kind: string, extra: object = {}) => ({
  ...base,
  name,
  kind,
  method_default: 'welch_t',
  ...extra,
});

const REL = 1e-9;
type Gbstats = Record<'effect' | 'ci_low' | 'ci_high' | 'p_value', number>;
function near(actual: unknown, expected: unknown, what: string, abs = 0) {
  const a = actual as number;
  const e = expected as number;
  expect(typeof a, what).toBe('number');
  expect(Math.abs(a - e), `${what}: ${a} vs ${e}`).toBeLessThanOrEqual(abs + REL * Math.abs(e));
}

/** What the test sent, per arm: each user's latency (one call), revenue and pre-period revenue. */
const sent: Record<Arm, { latency: number[]; revenue: number[]; pre: Array<number | null> }> = {
  control: { latency: [], revenue: [], pre: [] },
  treatment: { latency: [], revenue: [], pre: [] },
};
const USERS = 900;
let capped: string;
let uncapped: string;

const get = (url: string) => h.call(org.admin, { method: 'GET', url });
const results = async (id: string) =>
  (await get(`/v1/experiments/${id}/results`)).json() as Results;

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('capping-org');
  const metrics = (cap: (c: object) => object | null) => [
    metric('latency', 'latency', { cap: cap({ percentile: 0.99 }) }),
    metric('latency-ranks', 'latency', {
      method_default: 'mann_whitney',
      cap: cap({ percentile: 0.99 }),
    }),
    metric('revenue', 'revenue', {
      direction: 'increase',
      cuped: { covariate_days: 14 },
      cap: cap({ percentile: 0.97, lower_percentile: 0.02 }),
    }),
    metric('spend', 'revenue', { cap: cap({ value: 120, lower: -40 }) }),
  ];
  capped = await h.experiment(org.admin, {
    name: 'capped',
    metrics: metrics((c) => c),
    dimensions: ['model'],
  });
  uncapped = await h.experiment(org.admin, { name: 'uncapped', metrics: metrics(() => null) });
  const rng = seeded(78);
  const now = new Date().toISOString();
  const live: object[] = [];
  const history: object[] = [];
  for (let u = 0; u < USERS; u++) {
    const arm: Arm = u % 2 === 0 ? 'control' : 'treatment';
    const user = `cap${u}`;
    // Heavy tails: a timeout now and then, a whale, refunds below zero.
    const latency =
      u % 97 === 5 ? 90_000 + u : Math.round(rng.normal(arm === 'control' ? 900 : 870, 120));
    const habit = rng.normal(40, 25);
    const revenue = u % 53 === 7 ? 5_000 + u : u % 61 === 3 ? -800 : habit + rng.normal(3, 10);
    const pre = u % 5 === 0 ? null : u % 89 === 1 ? 9_000 : habit;
    sent[arm].latency.push(latency);
    sent[arm].revenue.push(revenue);
    sent[arm].pre.push(pre);
    for (const id of [capped, uncapped]) {
      const common = { experiment_id: id, user_id: user, variant: arm };
      live.push({ ...common, event_id: `x-${id}-${u}`, type: 'exposure', timestamp: now });
      live.push({
        ...common,
        event_id: `m-${id}-${u}`,
        type: 'model_call',
        timestamp: now,
        latency_ms: latency,
        model: 'gpt-test',
      });
      for (const name of ['revenue', 'spend'])
        live.push({
          ...common,
          event_id: `${name}-${id}-${u}`,
          type: 'business_event',
          timestamp: now,
          business_metric: name,
          value: revenue,
        });
      if (pre !== null)
        history.push({
          ...common,
          event_id: `pre-${id}-${u}`,
          type: 'business_event',
          timestamp: daysAgo(5),
          business_metric: 'revenue',
          value: pre,
        });
    }
  }
  await importAll(h, org.secret, history);
  live.push(...(await plantedOutlier()));
  await ingestAll(h, org.secret, live);
  const summary = await runNightlyFor(h, today());
  expect(summary.experiments.map((e: { status: string }) => e.status)).toEqual([
    'computed',
    'computed',
    'computed',
    'computed',
  ]);
}, 300_000);
afterAll(() => h.close());

let flipDefault: string;
let flipUncapped: string;

/**
 * Two experiments with the same latencies: treatment 25 ms faster, and one 90-second timeout
 * in treatment. One metric states no cap (a new latency metric: the default 99.9th
 * percentile), the other `cap: null`.
 */
async function plantedOutlier(): Promise<object[]> {
  const latency = { ...metric('latency', 'latency'), category: 'primary' };
  flipDefault = await h.experiment(org.admin, { name: 'flip-default', metrics: [latency] });
  flipUncapped = await h.experiment(org.admin, {
    name: 'flip-uncapped',
    metrics: [{ ...latency, cap: null }],
  });
  const rng = seeded(4818);
  const now = new Date().toISOString();
  const events: object[] = [];
  for (let u = 0; u < 1000; u++) {
    const arm: Arm = u % 2 === 0 ? 'control' : 'treatment';
    const ms = u === 501 ? 90_000 : Math.round(rng.normal(arm === 'control' ? 1000 : 975, 100));
    for (const id of [flipDefault, flipUncapped]) {
      const common = { experiment_id: id, user_id: `flip${u}`, variant: arm, timestamp: now };
      events.push({ ...common, event_id: `fx-${id}-${u}`, type: 'exposure' });
      events.push({ ...common, event_id: `fm-${id}-${u}`, type: 'model_call', latency_ms: ms });
    }
  }
  return events;
}

describe('a planted outlier', () => {
  it('hides a real improvement from Welch without the cap, and not with the default cap', async () => {
    const withCap = (await results(flipDefault)).results['latency::treatment'];
    const without = (await results(flipUncapped)).results['latency::treatment'];
    expect(withCap?.capping).toMatchObject({
      cap: { percentile: 0.999 },
      users_capped: { control: 0, treatment: 1 },
      applied: true,
    });
    expect(withCap?.significant).toBe(true);
    expect(withCap?.outcome).toBe('better');
    expect(withCap?.effect).toBeLessThan(0);
    expect(without?.significant).toBe(false);
    expect(without?.outcome).toBe('inconclusive');
    expect(without?.effect).toBeGreaterThan(0);
  });
});

describe('capped per-user values against numpy and the scipy and gbstats oracles', () => {
  it('caps latency at the pooled percentile and tests the capped values with Welch', async () => {
    const [ref] = runOracle([
      {
        kind: 'capped_welch',
        cap: { percentile: 0.99 },
        control: sent.control.latency,
        treatment: sent.treatment.latency,
      },
    ]).results as Array<Record<string, number>>;
    const r = (await results(capped)).results['latency::treatment'];
    expect(r?.capping).toMatchObject({ cap: { percentile: 0.99 }, lower: null, applied: true });
    near(r?.capping?.upper, ref?.upper, 'upper');
    expect(r?.capping?.users_capped).toEqual({
      control: ref?.capped_control,
      treatment: ref?.capped_treatment,
    });
    expect(ref?.capped_control).toBeGreaterThan(0);
    near(r?.statistic, ref?.statistic, 'statistic');
    near(r?.p_value, ref?.p_value, 'p_value');
    near(r?.ci_low, ref?.ci_low, 'ci_low');
    near(r?.ci_high, ref?.ci_high, 'ci_high');
    near(r?.mean_per_arm.control, ref?.mean_control, 'mean control');
    near(r?.mean_per_arm.treatment, ref?.mean_treatment, 'mean treatment');
  });

  it('leaves Mann–Whitney’s values uncapped and says so', async () => {
    const [mw, capRef] = runOracle([
      { kind: 'mann_whitney', control: sent.control.latency, treatment: sent.treatment.latency },
      {
        kind: 'capped_welch',
        cap: { percentile: 0.99 },
        control: sent.control.latency,
        treatment: sent.treatment.latency,
      },
    ]).results as Array<Record<string, number>>;
    const r = (await results(capped)).results['latency-ranks::treatment'];
    expect(r?.test).toBe('mann_whitney');
    expect(r?.capping?.applied).toBe(false);
    // What the cap would have touched, as the Welch metric over the same values reports it.
    near(r?.capping?.upper, capRef?.upper, 'upper');
    expect(r?.capping?.users_capped).toEqual({
      control: capRef?.capped_control,
      treatment: capRef?.capped_treatment,
    });
    near(r?.p_value, mw?.p_value, 'p_value');
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    near(r?.mean_per_arm.treatment, mean(sent.treatment.latency), 'uncapped mean');
  });

  it('caps a value-capped metric at its values, both ways', async () => {
    const [ref] = runOracle([
      {
        kind: 'capped_welch',
        cap: { value: 120, lower: -40 },
        control: sent.control.revenue,
        treatment: sent.treatment.revenue,
      },
    ]).results as Array<Record<string, number>>;
    const r = (await results(capped)).results['spend::treatment'];
    expect(r?.capping).toMatchObject({ cap: { value: 120, lower: -40 }, upper: 120, lower: -40 });
    expect(r?.capping?.users_capped).toEqual({
      control: ref?.capped_control,
      treatment: ref?.capped_treatment,
    });
    near(r?.statistic, ref?.statistic, 'statistic');
    near(r?.p_value, ref?.p_value, 'p_value');
    near(r?.ci_low, ref?.ci_low, 'ci_low');
    near(r?.ci_high, ref?.ci_high, 'ci_high');
  });

  it('caps CUPED’s values and covariates at both pooled percentiles', async () => {
    const arm = (a: Arm) => ({ y: sent[a].revenue, x: sent[a].pre });
    const [ref] = runOracle(
      [
        {
          kind: 'capped_cuped',
          cap: { percentile: 0.97, lower_percentile: 0.02 },
          control: arm('control'),
          treatment: arm('treatment'),
        },
      ],
      GBSTATS_ORACLE,
    ).results as Array<Record<string, never>>;
    const r = (await results(capped)).results['revenue::treatment'];
    const want = ref as unknown as {
      upper: number;
      lower: number;
      capped_control: number;
      capped_treatment: number;
      theta: number;
      adjusted: Gbstats;
      unadjusted: Gbstats;
    };
    near(r?.capping?.upper, want.upper, 'upper');
    near(r?.capping?.lower, want.lower, 'lower');
    expect(r?.capping?.users_capped).toEqual({
      control: want.capped_control,
      treatment: want.capped_treatment,
    });
    near(r?.cuped?.theta, want.theta, 'theta');
    const scale = Math.abs(want.adjusted.ci_high - want.adjusted.ci_low);
    near(r?.effect, want.adjusted.effect, 'adjusted effect', REL * scale);
    near(r?.ci_low, want.adjusted.ci_low, 'adjusted ci_low', REL * scale);
    near(r?.ci_high, want.adjusted.ci_high, 'adjusted ci_high', REL * scale);
    near(r?.p_value, want.adjusted.p_value, 'adjusted p_value', 1e-12);
    near(r?.unadjusted?.effect, want.unadjusted.effect, 'unadjusted effect', REL * scale);
    near(r?.unadjusted?.p_value, want.unadjusted.p_value, 'unadjusted p_value', 1e-12);
  });

  it('leaves a metric that states cap: null as it was, without a capping block', async () => {
    const [ref] = runOracle([
      { kind: 'welch', control: sent.control.latency, treatment: sent.treatment.latency },
    ]).results as Array<Record<string, number>>;
    const r = (await results(uncapped)).results['latency::treatment'];
    expect(r).toBeDefined();
    expect(r && 'capping' in r).toBe(false);
    near(r?.statistic, ref?.statistic, 'statistic');
    near(r?.p_value, ref?.p_value, 'p_value');
  });
});

describe('caps in breakdowns and the export', () => {
  it('holds a slice’s values within the run’s bounds', async () => {
    // Every user made one call with the one model: the slice is the run's users.
    const run = await results(capped);
    const res = await get(`/v1/experiments/${capped}/results?dimension=model`);
    expect(res.statusCode).toBe(200);
    const [slice] = (res.json() as Results).breakdown?.slices ?? [];
    expect(slice?.value).toBe('gpt-test');
    for (const name of ['latency', 'spend']) {
      const own = run.results[`${name}::treatment`];
      const sliced = slice?.results[`${name}::treatment`];
      near(sliced?.statistic, own?.statistic, `${name} statistic`);
      near(sliced?.ci_low, own?.ci_low, `${name} ci_low`);
      expect(sliced && 'capping' in sliced).toBe(false);
    }
    // CUPED does not adjust slices: the slice's revenue is the run's capped, unadjusted test.
    const revenue = run.results['revenue::treatment'];
    near(slice?.results['revenue::treatment']?.effect, revenue?.unadjusted?.effect, 'revenue');
  });

  it('exports each metric’s bounds and users capped per arm', async () => {
    const run = await results(capped);
    const rows = (
      await get(`/v1/experiments/${capped}/results/export?format=json&dimension=model`)
    ).json() as Array<Record<string, unknown>>;
    const own = rows.find((r) => r.metric === 'latency' && r.slice === null);
    const capping = run.results['latency::treatment']?.capping;
    expect(own).toMatchObject({
      cap_upper: capping?.upper,
      cap_lower: null,
      users_capped_control: capping?.users_capped.control,
      users_capped_treatment: capping?.users_capped.treatment,
      cap_applied: true,
    });
    const sliced = rows.find((r) => r.metric === 'latency' && r.slice === 'gpt-test');
    expect(sliced).toMatchObject({ cap_upper: capping?.upper, users_capped_control: null });
    const uncappedRows = (
      await get(`/v1/experiments/${uncapped}/results/export?format=json`)
    ).json() as Array<Record<string, unknown>>;
    expect(uncappedRows.every((r) => r.cap_upper === null && r.cap_applied === null)).toBe(true);
  });
});

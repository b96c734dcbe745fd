import {
  quantileLevel,
  quantileTest,
  ratioTest,
  summarizeQuantileArm,
  summarizeWithCovariate,
} from '@arbiter/stats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Results } from '../../src/analysis/results/results-schema.ts';
import { ingestAll, runNightlyFor, seeded, today } from '../support/analysis-data.ts';
import { type Harness, startHarness } from '../support/harness.ts';

/**
 * Quantile and ratio metrics through the HTTP API: the events go in through `POST /v1/events`,
 * the nightly and a manual run compute them in SQL, and the results equal the statistics of
 * @arbiter/stats (checked against gbstats in its own tests) applied to the raw events this
 * test sent, grouped in memory.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let id: string;

const ARMS = ['control', 'treatment'] as const;
type Arm = (typeof ARMS)[number];
const USERS = 700;

const base = { category: 'primary', metric_version: 1, shared_org_wide: false } as const;
const P95 = {
  ...base,
  name: 'p95-latency',
  kind: 'latency',
  method_default: 'welch_t',
  quantile: 0.95,
};
const COST_PER_CONVERSION = {
  ...base,
  name: 'cost-per-conversion',
  kind: 'ratio',
  category: 'secondary',
  method_default: 'welch_t',
  direction: 'decrease',
  numerator: { of: 'cost' },
  denominator: { business_metric: 'purchase', of: 'count' },
};
const TOKENS_PER_CALL = {
  ...base,
  name: 'tokens-per-call',
  kind: 'ratio',
  category: 'guardrail',
  method_default: 'welch_t',
  direction: 'decrease',
  numerator: { of: 'tokens' },
  denominator: { of: 'calls' },
};

/** What the test sent, per arm and user: the calls' latency, tokens, cost, and purchases. */
interface UserData {
  latency: number[];
  tokens: number[];
  cost: number[];
  purchases: number;
}
const sent: Record<Arm, UserData[]> = { control: [], treatment: [] };

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('quantile-ratio-org');
  id = await h.experiment(org.admin, {
    name: 'llm-metrics',
    metrics: [P95, COST_PER_CONVERSION, TOKENS_PER_CALL],
  });
  const rng = seeded(27);
  const poisson = (lambda: number) => {
    let k = 0;
    for (let p = rng.next(); p > Math.exp(-lambda); p *= rng.next()) k++;
    return k;
  };
  const now = new Date().toISOString();
  const events: object[] = [];
  for (let u = 0; u < USERS; u++) {
    const arm: Arm = u % 2 === 0 ? 'control' : 'treatment';
    const slow = arm === 'treatment' ? 1.15 : 1;
    const user = `q${u}`;
    const data: UserData = { latency: [], tokens: [], cost: [], purchases: 0 };
    const common = { experiment_id: id, user_id: user, variant: arm, timestamp: now };
    events.push({ ...common, event_id: `x-${u}`, type: 'exposure' });
    const calls = poisson(2.2);
    for (let c = 0; c < calls; c++) {
      // Whole milliseconds: heavy ties, as real latencies have.
      const latency = Math.round(Math.exp(rng.normal(6.3, 0.7)) * slow);
      const input = Math.round(Math.exp(rng.normal(5, 0.4)));
      const output = Math.round(Math.exp(rng.normal(4.5, 0.5)));
      const cost = Math.round((input * 3 + output * 15) * slow) / 1e6;
      data.latency.push(latency);
      data.tokens.push(input + output);
      data.cost.push(cost);
      events.push({
        ...common,
        event_id: `m-${u}-${c}`,
        type: 'model_call',
        latency_ms: latency,
        input_tokens: input,
        output_tokens: output,
        cost_usd: cost,
        model: 'gpt-test',
      });
    }
    data.purchases = rng.next() < 0.3 ? 1 + (rng.next() < 0.2 ? 1 : 0) : 0;
    for (let p = 0; p < data.purchases; p++)
      events.push({
        ...common,
        event_id: `p-${u}-${p}`,
        type: 'business_event',
        business_metric: 'purchase',
        value: 20,
      });
    sent[arm].push(data);
  }
  await ingestAll(h, org.secret, events);
}, 120_000);
afterAll(() => h.close());

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The oracle of each metric from the raw events, per arm. */
function oracle() {
  const level = quantileLevel(P95.quantile) as number;
  const latency = (arm: Arm) =>
    summarizeQuantileArm(
      sent[arm].map((d) => d.latency),
      level,
    );
  const perUser = (arm: Arm, num: (d: UserData) => number, den: (d: UserData) => number) =>
    summarizeWithCovariate(sent[arm].map(num), sent[arm].map(den));
  return {
    'p95-latency': quantileTest(latency('control'), latency('treatment'), level),
    'cost-per-conversion': ratioTest(
      perUser(
        'control',
        (d) => sum(d.cost),
        (d) => d.purchases,
      ),
      perUser(
        'treatment',
        (d) => sum(d.cost),
        (d) => d.purchases,
      ),
    ),
    'tokens-per-call': ratioTest(
      perUser(
        'control',
        (d) => sum(d.tokens),
        (d) => d.tokens.length,
      ),
      perUser(
        'treatment',
        (d) => sum(d.tokens),
        (d) => d.tokens.length,
      ),
    ),
  };
}

function expectClose(actual: number | null | undefined, expected: number, what: string) {
  expect(typeof actual, what).toBe('number');
  const tol = 1e-9 * Math.max(1, Math.abs(expected));
  expect(
    Math.abs((actual as number) - expected),
    `${what}: ${actual} vs ${expected}`,
  ).toBeLessThanOrEqual(tol);
}

function expectOracle(results: Results['results']) {
  const expected = oracle();
  for (const [name, want] of Object.entries(expected)) {
    const got = results[`${name}::treatment`];
    expect(got, name).toBeDefined();
    expect(want.ok, `${name}: the data are meant to be testable`).toBe(true);
    expect(got?.ok, name).toBe(true);
    expect(got?.test).toBe('welch_t');
    for (const field of ['effect', 'ci_low', 'ci_high', 'p_value', 'statistic'] as const)
      expectClose(got?.[field], want[field], `${name} ${field}`);
    expectClose(got?.lift, want.lift as number, `${name} lift`);
    expect(got?.n_per_arm).toEqual({ control: want.n_control, treatment: want.n_treatment });
  }
  const q = expected['p95-latency'];
  const p95 = results['p95-latency::treatment'];
  expect(p95?.calls_per_arm).toEqual({ control: q.calls_control, treatment: q.calls_treatment });
  expect(p95?.quantile_per_arm).toEqual({
    control: q.quantile_control,
    treatment: q.quantile_treatment,
  });
  expect(p95?.mean_per_arm).toEqual(p95?.quantile_per_arm);
  expect(p95?.n_per_arm).toEqual({ control: USERS / 2, treatment: USERS / 2 });
  const ratio = expected['cost-per-conversion'];
  const cost = results['cost-per-conversion::treatment'];
  expectClose(cost?.mean_per_arm.control, ratio.ratio_control, 'control cost per conversion');
  expectClose(cost?.mean_per_arm.treatment, ratio.ratio_treatment, 'treatment ratio');
  expect(cost?.calls_per_arm).toBeUndefined();
}

describe('quantile and ratio metrics, computed from the events sent', () => {
  it('a nightly run equals the oracle', async () => {
    const summary = await runNightlyFor(h, today());
    expect(summary.experiments.map((e: { status: string }) => e.status)).toEqual(['computed']);
    const res = await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${id}/results` });
    expect(res.statusCode).toBe(200);
    const body = res.json() as Results;
    expectOracle(body.results);
    // The treatment's calls are 15 % slower: its p95 is higher, and a decrease-is-better metric.
    const p95 = body.results['p95-latency::treatment'];
    expect(p95?.effect).toBeGreaterThan(0);
    expect(p95?.outcome).toBe(p95?.significant ? 'worse' : 'inconclusive');
  });

  it('a manual run equals the oracle and carries the always-valid block', async () => {
    const res = await h.call(org.admin, { method: 'POST', url: `/v1/experiments/${id}/analyze` });
    expect(res.statusCode).toBe(200);
    const run = res.json() as Results;
    expectOracle(run.results);
    for (const name of ['p95-latency', 'cost-per-conversion', 'tokens-per-call']) {
      const r = run.results[`${name}::treatment`];
      expect(r?.sequential, name).toBeTruthy();
      expect(r?.sequential?.p_value).toBeGreaterThanOrEqual(r?.p_value as number);
    }
  });
});

describe('quantile and ratio definitions', () => {
  const create = (metric: object) =>
    h.call(org.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: {
        name: `bad-${Math.random().toString(36).slice(2, 8)}`,
        salt: 's',
        bucket_count: 10,
        allocation: [{ variant: 'a', weight: 100 }],
        metrics: [metric],
      },
    });

  it.each([
    [
      'a quantile of a per-user kind',
      { ...P95, kind: 'conversion', method_default: 'welch_t' },
      '#/metrics/0/quantile',
    ],
    ['a quantile with five decimals', { ...P95, quantile: 0.95001 }, '#/metrics/0/quantile'],
    ['a quantile of 1', { ...P95, quantile: 1 }, '/metrics/0/quantile'],
    [
      'a rank test on a quantile',
      { ...P95, method_default: 'mann_whitney' },
      '#/metrics/0/method_default',
    ],
    ['CUPED on a quantile', { ...P95, cuped: { covariate_days: 7 } }, '#/metrics/0/cuped'],
    [
      'a ratio without a denominator',
      { ...TOKENS_PER_CALL, denominator: undefined },
      '#/metrics/0/denominator',
    ],
    [
      'a ratio without a direction',
      { ...TOKENS_PER_CALL, direction: undefined },
      '#/metrics/0/direction',
    ],
    ['CUPED on a ratio', { ...TOKENS_PER_CALL, cuped: { covariate_days: 7 } }, '#/metrics/0/cuped'],
    [
      'a permutation test on a ratio',
      { ...TOKENS_PER_CALL, method_default: 'permutation' },
      '#/metrics/0/method_default',
    ],
    [
      'a business part without its metric',
      { ...TOKENS_PER_CALL, numerator: { of: 'count' } },
      '#/metrics/0/numerator/of',
    ],
    [
      'a call part with a business metric',
      { ...TOKENS_PER_CALL, numerator: { business_metric: 'purchase', of: 'cost' } },
      '#/metrics/0/numerator/of',
    ],
    [
      'an unknown part',
      { ...TOKENS_PER_CALL, numerator: { of: 'vibes' } },
      '/metrics/0/numerator/of',
    ],
    [
      'a numerator on a latency metric',
      { ...P95, numerator: { of: 'cost' } },
      '#/metrics/0/numerator',
    ],
  ])('refuses %s with a pointer', async (_, metric, pointer) => {
    const res = await create(metric);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.json())).toContain(pointer);
  });

  it('refuses overriding a quantile or ratio metric with a rank test, saying why', async () => {
    for (const metric of ['p95-latency', 'tokens-per-call']) {
      const res = await h.call(org.admin, {
        method: 'PUT',
        url: `/v1/experiments/${id}/metrics/${metric}/method`,
        payload: { method: 'mann_whitney' },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().detail).toMatch(
        /tested on the difference of the arms' (quantiles|ratios) with welch_t/,
      );
    }
  });
});

import { MAX_SLICE_VALUES, OTHER_SLICE } from '@arbiter/contract';
import {
  quantileLevel,
  quantileTest,
  ratioTest,
  srmGate,
  summarize,
  summarizeQuantileArm,
  summarizeWithCovariate,
  type TwoSampleResult,
  welchTest,
} from '@arbiter/stats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../../../src/analysis/results/results-export.ts';
import type { Results } from '../../../src/analysis/results/results-schema.ts';
import type { Slice } from '../../../src/schemas/analysis-run.ts';
import { ingestAll, runNightlyFor, seeded, today } from '../../support/analysis-data.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * Breakdowns through the HTTP API: the events go in through `POST /v1/events` with a model per
 * call and a `segment` in their metadata; the nightly run and a manual run asked for a
 * dimension compute its slices in SQL, and each slice equals the statistics of @arbiter/stats
 * applied to the raw events this test sent, sliced in memory: a user is in every slice whose
 * value they had, per-call metrics see only the slice's calls, business events are the
 * user's own.
 */
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let id: string;

const ARMS = ['control', 'treatment'] as const;
type Arm = (typeof ARMS)[number];
const USERS = 900;
const MODELS = ['gpt-a', 'gpt-b', 'claude-c'];
/** More segments than a breakdown shows, of different sizes: the smallest go to (other). */
const SEGMENTS = 24;

const base = { category: 'secondary', metric_version: 1, shared_org_wide: false } as const;
// Uncapped, so the oracle's per-user means are the values tested (caps: test/analysis/capping).
const LATENCY = {
  ...base,
  name: 'latency',
  kind: 'latency',
  method_default: 'welch_t',
  cap: null,
};
const P90 = {
  ...base,
  name: 'p90-latency',
  kind: 'latency',
  method_default: 'welch_t',
  quantile: 0.9,
};
const COST_PER_PURCHASE = {
  ...base,
  name: 'cost-per-purchase',
  kind: 'ratio',
  method_default: 'welch_t',
  direction: 'decrease',
  numerator: { of: 'cost' },
  denominator: { business_metric: 'purchase', of: 'count' },
};
const DIMENSIONS = ['model', 'metadata.segment'];

interface Call {
  model: string;
  segment: string;
  latency: number;
  cost: number;
}
interface SentUser {
  arm: Arm;
  segment: string;
  calls: Call[];
  purchases: number;
}
const sent: SentUser[] = [];

const segmentOf = (pair: number) =>
  `seg-${String(Math.floor(SEGMENTS * (pair / (USERS / 2)) ** 1.5)).padStart(2, '0')}`;

beforeAll(async () => {
  h = await startHarness();
  org = await h.org('breakdowns-org');
  id = await h.experiment(org.admin, {
    name: 'by-model',
    metrics: [LATENCY, P90, COST_PER_PURCHASE],
    dimensions: DIMENSIONS,
  });
  const rng = seeded(2709);
  const now = new Date().toISOString();
  const events: object[] = [];
  for (let u = 0; u < USERS; u++) {
    const arm: Arm = u % 2 === 0 ? 'control' : 'treatment';
    const segment = segmentOf(Math.floor(u / 2));
    const user: SentUser = { arm, segment, calls: [], purchases: 0 };
    const common = { experiment_id: id, user_id: `b${u}`, variant: arm, timestamp: now };
    events.push({ ...common, event_id: `x-${u}`, type: 'exposure', metadata: { segment } });
    const calls = 1 + Math.floor(rng.next() * 4);
    for (let c = 0; c < calls; c++) {
      const r = rng.next();
      const model = r < 0.6 ? 'gpt-a' : r < 0.9 ? 'gpt-b' : 'claude-c';
      // One call in ten is made from another segment: the user is in both slices.
      const callSegment =
        rng.next() < 0.1 ? segmentOf(Math.floor(rng.next() * (USERS / 2))) : segment;
      const slow = (arm === 'treatment' ? 1.1 : 1) * (model === 'claude-c' ? 1.5 : 1);
      const latency = Math.round(Math.exp(rng.normal(6, 0.6)) * slow);
      const cost = Math.round(rng.next() * 2000 * slow) / 1e6;
      user.calls.push({ model, segment: callSegment, latency, cost });
      events.push({
        ...common,
        event_id: `m-${u}-${c}`,
        type: 'model_call',
        latency_ms: latency,
        cost_usd: cost,
        model,
        metadata: { segment: callSegment },
      });
    }
    user.purchases = rng.next() < 0.35 ? 1 : 0;
    for (let p = 0; p < user.purchases; p++)
      events.push({
        ...common,
        event_id: `p-${u}-${p}`,
        type: 'business_event',
        business_metric: 'purchase',
        value: 10,
        metadata: { segment },
      });
    sent.push(user);
  }
  await ingestAll(h, org.secret, events);
}, 180_000);
afterAll(() => h.close());

/** Every value of the dimension a user had (exposure, calls, purchases), and each call's. */
function valuesOf(
  dimension: string,
  user: SentUser,
): { user: Set<string>; call: (c: Call) => string } {
  if (dimension === 'model')
    return { user: new Set(user.calls.map((c) => c.model)), call: (c) => c.model };
  return {
    user: new Set([user.segment, ...user.calls.map((c) => c.segment)]),
    call: (c) => c.segment,
  };
}

interface OracleSlice {
  value: string;
  members: Record<Arm, SentUser[]>;
  /** Per arm and member: the member's calls in the slice. */
  calls: Record<Arm, Call[][]>;
}

/** The slices of a dimension from the events sent: the top values by users, the rest (other). */
function oracleSlices(dimension: string): OracleSlice[] {
  const usersOf = new Map<string, number>();
  for (const u of sent)
    for (const v of valuesOf(dimension, u).user) usersOf.set(v, (usersOf.get(v) ?? 0) + 1);
  const top = [...usersOf.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_SLICE_VALUES)
    .map(([v]) => v);
  const sliceOf = (v: string) => (top.includes(v) ? v : OTHER_SLICE);
  const slices = new Map<string, OracleSlice>();
  for (const u of sent) {
    const { user, call } = valuesOf(dimension, u);
    for (const s of new Set([...user].map(sliceOf))) {
      const slice = slices.get(s) ?? {
        value: s,
        members: { control: [], treatment: [] },
        calls: { control: [], treatment: [] },
      };
      slice.members[u.arm].push(u);
      slice.calls[u.arm].push(u.calls.filter((c) => sliceOf(call(c)) === s));
      slices.set(s, slice);
    }
  }
  return [...slices.values()];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function expectClose(actual: number | null | undefined, expected: number, what: string) {
  expect(typeof actual, what).toBe('number');
  const tol = 1e-9 * Math.max(1, Math.abs(expected));
  expect(
    Math.abs((actual as number) - expected),
    `${what}: ${actual} vs ${expected}`,
  ).toBeLessThanOrEqual(tol);
}

/** Each metric's test on one oracle slice, with its users per arm. */
function sliceTests(s: OracleSlice) {
  const level = quantileLevel(P90.quantile) as number;
  const latencies = (arm: Arm) =>
    s.calls[arm]
      .filter((calls) => calls.length > 0)
      .map((calls) => sum(calls.map((c) => c.latency)) / calls.length);
  const out: Record<string, { result: TwoSampleResult; mean: Record<Arm, number> }> = {};
  const lat = { control: latencies('control'), treatment: latencies('treatment') };
  out.latency = {
    result: welchTest(summarize(lat.control), summarize(lat.treatment)),
    mean: {
      control: sum(lat.control) / lat.control.length,
      treatment: sum(lat.treatment) / lat.treatment.length,
    },
  };
  const q = (arm: Arm) =>
    summarizeQuantileArm(
      s.calls[arm].map((calls) => calls.map((c) => c.latency)),
      level,
    );
  const p90 = quantileTest(q('control'), q('treatment'), level);
  out['p90-latency'] = {
    result: p90,
    mean: { control: p90.quantile_control, treatment: p90.quantile_treatment },
  };
  const ratio = (arm: Arm) =>
    summarizeWithCovariate(
      s.calls[arm].map((calls) => sum(calls.map((c) => c.cost))),
      s.members[arm].map((u) => u.purchases),
    );
  const r = ratioTest(ratio('control'), ratio('treatment'));
  out['cost-per-purchase'] = {
    result: r,
    mean: { control: r.ratio_control, treatment: r.ratio_treatment },
  };
  return out;
}

/** A breakdown as served equals the oracle's slices, value by value. */
function expectBreakdown(breakdown: Results['breakdown'], dimension: string) {
  expect(breakdown?.dimension).toBe(dimension);
  expect(breakdown?.exploratory).toBe(true);
  const want = oracleSlices(dimension).sort((a, b) => {
    if (a.value === OTHER_SLICE) return 1;
    if (b.value === OTHER_SLICE) return -1;
    const users = (s: OracleSlice) => s.members.control.length + s.members.treatment.length;
    return users(b) - users(a) || (a.value < b.value ? -1 : 1);
  });
  const got = breakdown?.slices ?? [];
  expect(got.map((s) => s.value)).toEqual(want.map((s) => s.value));
  for (const [i, w] of want.entries()) expectSlice(got[i] as Slice, w);
}

function expectSlice(got: Slice, want: OracleSlice) {
  const what = (s: string) => `${want.value}: ${s}`;
  expect(got.exploratory).toBe(true);
  const users = { control: want.members.control.length, treatment: want.members.treatment.length };
  expect(got.users, what('users')).toBe(users.control + users.treatment);
  expect(got.arms, what('arms')).toEqual({
    control: { users: users.control, events: users.control },
    treatment: { users: users.treatment, events: users.treatment },
  });
  const srm = srmGate([{ n: users.control }, { n: users.treatment }], [0.5, 0.5]);
  expectClose(got.srm.p_value, srm.p_value, what('srm p'));
  expect(got.srm.halted).toBe(srm.halted);
  if (srm.halted) {
    expect(got.results).toEqual({});
    return;
  }
  for (const [metric, { result, mean }] of Object.entries(sliceTests(want))) {
    const r = got.results[`${metric}::treatment`];
    expect(r, what(metric)).toBeDefined();
    expect(r?.exploratory).toBe(true);
    expect(r && 'p_value_fdr' in r, what('no FDR p-value')).toBe(false);
    expect(r && 'significant' in r).toBe(false);
    expect(r?.ok, what(`${metric} ok`)).toBe(result.ok);
    expect(r?.n_per_arm, what(`${metric} n`)).toEqual({
      control: result.n_control,
      treatment: result.n_treatment,
    });
    if (!result.ok) continue;
    for (const field of ['effect', 'ci_low', 'ci_high', 'p_value', 'statistic'] as const)
      expectClose(r?.[field], result[field], what(`${metric} ${field}`));
    expectClose(r?.mean_per_arm.control, mean.control, what(`${metric} control mean`));
    expectClose(r?.mean_per_arm.treatment, mean.treatment, what(`${metric} treatment mean`));
  }
}

const get = (url: string) => h.call(org.admin, { method: 'GET', url });

describe('breakdowns, computed from the events sent', () => {
  it('the data span more segments than a breakdown shows, and three models', () => {
    expect(oracleSlices('metadata.segment').map((s) => s.value)).toContain(OTHER_SLICE);
    expect(oracleSlices('metadata.segment')).toHaveLength(MAX_SLICE_VALUES + 1);
    expect(
      oracleSlices('model')
        .map((s) => s.value)
        .sort(),
    ).toEqual([...MODELS].sort());
  });

  it('a nightly run computes every declared dimension, equal to the oracle', async () => {
    const summary = await runNightlyFor(h, today());
    expect(summary.experiments.map((e: { status: string }) => e.status)).toEqual(['computed']);
    const plain = (await get(`/v1/experiments/${id}/results`)).json() as Results;
    expect(plain.breakdown).toBeUndefined();
    for (const dimension of DIMENSIONS) {
      const res = await get(`/v1/experiments/${id}/results?dimension=${dimension}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Results;
      expectBreakdown(body.breakdown, dimension);
      // Every model slice is large enough to test: the comparison above is not vacuous.
      if (dimension === 'model')
        for (const slice of body.breakdown?.slices ?? []) {
          expect(slice.srm.halted).toBe(false);
          expect(Object.values(slice.results).map((r) => r.ok)).toEqual([true, true, true]);
        }
      else expect(body.breakdown?.slices.at(-1)?.value).toBe(OTHER_SLICE);
      // The run's own results are the same with or without the breakdown.
      expect({ ...body, breakdown: undefined }).toEqual({ ...plain, breakdown: undefined });
    }
  });

  it('a manual run computes a breakdown on request; its own results do not change', async () => {
    const without = await h.call(org.admin, {
      method: 'POST',
      url: `/v1/experiments/${id}/analyze`,
    });
    expect(without.statusCode, without.body).toBe(200);
    const run = without.json() as Results;
    expect(run.breakdown).toBeUndefined();
    const missing = await get(
      `/v1/experiments/${id}/results?day=${run.computed_for}&dimension=model`,
    );
    expect(missing.statusCode).toBe(404);
    expect(missing.json().type).toBe('/problems/breakdown-not-computed');
    expect(missing.json().detail).toContain('analyze?dimension=model');

    const asked = await h.call(org.admin, {
      method: 'POST',
      url: `/v1/experiments/${id}/analyze?dimension=model`,
    });
    expect(asked.statusCode, asked.body).toBe(200);
    const sliced = asked.json() as Results;
    expectBreakdown(sliced.breakdown, 'model');
    expect(sliced.results).toEqual(run.results);
    expect(sliced.decision).toEqual(run.decision);
    const served = await get(
      `/v1/experiments/${id}/results?day=${sliced.computed_for}&dimension=model`,
    );
    expect(served.statusCode).toBe(200);
    expect((served.json() as Results).breakdown).toEqual(sliced.breakdown);
    expect(
      (
        await get(
          `/v1/experiments/${id}/results?day=${sliced.computed_for}&dimension=metadata.segment`,
        )
      ).statusCode,
    ).toBe(404);
  });

  it('the export has one row per metric × treatment × slice after the run’s own', async () => {
    const res = await get(`/v1/experiments/${id}/results/export?dimension=model`);
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json() as ExportRow[];
    const own = rows.filter((r) => !r.exploratory);
    const sliced = rows.filter((r) => r.exploratory);
    expect(own).toHaveLength(3);
    expect(
      own.every((r) => r.slice === null && r.dimension === null && r.p_value_fdr !== null),
    ).toBe(true);
    expect(sliced).toHaveLength(3 * MODELS.length);
    const body = (await get(`/v1/experiments/${id}/results?dimension=model`)).json() as Results;
    for (const s of body.breakdown?.slices ?? [])
      for (const r of Object.values(s.results)) {
        const row = sliced.find((x) => x.slice === s.value && x.metric === r.metric);
        expect(row?.dimension).toBe('model');
        expect(row?.p_value).toBe(r.p_value);
        expect(row?.p_value_fdr).toBeNull();
        expect(row?.significant).toBeNull();
        expect(row?.n_control).toBe(r.n_per_arm.control);
      }
    const csv = await get(`/v1/experiments/${id}/results/export?dimension=model&format=csv`);
    expect(csv.body.split('\r\n')[0]).toMatch(
      /,dimension,slice,exploratory,cap_upper,cap_lower,users_capped_control,users_capped_treatment,cap_applied$/,
    );
  });
});

describe('dimensions: declared, validated, asked for', () => {
  const create = (dimensions: unknown) =>
    h.call(org.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: {
        name: `dims-${Math.random().toString(36).slice(2, 8)}`,
        salt: 's',
        bucket_count: 10,
        allocation: [{ variant: 'a', weight: 100 }],
        metrics: [],
        dimensions,
      },
    });

  it.each([
    ['a name that is not a dimension', ['region'], '/dimensions/0'],
    ['an empty metadata key', ['model', 'metadata.'], '/dimensions/1'],
    [
      'six dimensions',
      ['model', 'metadata.a', 'metadata.b', 'metadata.c', 'metadata.d', 'metadata.e'],
      '/dimensions',
    ],
    ['a dimension twice', ['model', 'metadata.a', 'model'], '#/dimensions/2'],
  ])('refuses %s with a pointer', async (_, dimensions, pointer) => {
    const res = await create(dimensions);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.json())).toContain(pointer);
  });

  it('stores and serves the declared dimensions', async () => {
    const res = await create(['model', 'metadata.tier']);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().dimensions).toEqual(['model', 'metadata.tier']);
  });

  it('an undeclared dimension is a 400 problem naming the declared ones, and runs nothing', async () => {
    const before = ((await get(`/v1/experiments/${id}/results`)).json() as Results).available_days;
    for (const [method, url] of [
      ['GET', `/v1/experiments/${id}/results?dimension=metadata.tier`],
      ['GET', `/v1/experiments/${id}/results/export?dimension=metadata.tier`],
      ['POST', `/v1/experiments/${id}/analyze?dimension=metadata.tier`],
    ] as const) {
      const res = await h.call(org.admin, { method, url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().type).toBe('/problems/dimension-unknown');
      expect(res.json().dimensions).toEqual(DIMENSIONS);
      expect(res.json().detail).toContain('metadata.segment');
    }
    expect(((await get(`/v1/experiments/${id}/results`)).json() as Results).available_days).toEqual(
      before,
    );
  });
});

import { sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsSchema } from '../../src/analysis/results/results-schema.ts';
import { purgeExpiredEvents } from '../../src/analysis/retention/retention.ts';
import { rows } from '../../src/db/connect.ts';
import { ingestAll, runNightlyFor, seeded, today } from '../support/analysis-data.ts';
import { LLM_FEATURE_METRICS, metric } from '../support/builders.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('acme');
});
afterAll(() => h.close());

async function createExperiment(
  name: string,
  allocation: Array<{ variant: string; weight: number }>,
  metrics: object[],
) {
  const res = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: { name, salt: `${name}-salt`, bucket_count: 999, allocation, metrics },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string };
}

const results = (id: string, day?: string) =>
  h.call(acme.admin, {
    method: 'GET',
    url: `/v1/experiments/${id}/results${day ? `?day=${encodeURIComponent(day)}` : ''}`,
  });

describe('a 3-arm experiment with one real effect, end to end through the HTTP API', () => {
  let id: string;
  let body: Static<typeof ResultsSchema>;

  beforeAll(async () => {
    id = (
      await createExperiment(
        'three-arms',
        [
          { variant: 'control', weight: 33.3 },
          { variant: 'fast', weight: 33.3 },
          { variant: 'chatty', weight: 33.3 },
        ],
        LLM_FEATURE_METRICS,
      )
    ).id;
    const rng = seeded(7);
    const events: object[] = [];
    const ts = new Date().toISOString();
    // The server assigns each user by the frozen bucketing (no variant sent); we ask it which.
    for (let u = 0; u < 2400; u++) {
      const user = `u${u}`;
      const variant = (
        await h.ingest(acme.secret, {
          method: 'POST',
          url: '/v1/assign',
          payload: { experiment_id: id, user_id: user },
        })
      ).json().variant;
      events.push({
        event_id: `x-${u}`,
        type: 'exposure',
        experiment_id: id,
        user_id: user,
        timestamp: ts,
      });
      // fast: 80 ms quicker; chatty: 8 more tokens (small, p just under 0.05 raw); conversion alike everywhere
      const latency = rng.normal(variant === 'fast' ? 420 : 500, 60);
      const tokens = rng.normal(variant === 'chatty' ? 308 : 300, 80);
      events.push({
        event_id: `m-${u}`,
        type: 'model_call',
        experiment_id: id,
        user_id: user,
        timestamp: ts,
        latency_ms: Math.max(1, latency),
        input_tokens: Math.max(0, Math.round(tokens)),
        output_tokens: 0,
        model: 'm',
      });
      if (rng.next() < 0.1)
        events.push({
          event_id: `c-${u}`,
          type: 'business_event',
          experiment_id: id,
          user_id: user,
          timestamp: ts,
          business_metric: 'checkout',
          value: 1,
        });
    }
    await ingestAll(h, acme.secret, events);
    expect((await results(id)).statusCode).toBe(404);
    const summary = await runNightlyFor(h, today());
    expect(summary.experiments).toContainEqual({
      experiment_id: id,
      name: 'three-arms',
      status: 'computed',
    });
    const res = await results(id);
    expect(res.statusCode).toBe(200);
    body = res.json();
  });

  it('passes the SRM gate and reports every pair with every required field', () => {
    expect(body.computed_for).toBe(today());
    expect(body.available_days).toEqual([today()]);
    expect(body.srm.halted).toBe(false);
    expect(body.srm.p_value).toBeGreaterThan(0.001);
    expect(Object.keys(body.results).sort()).toEqual([
      'checkout::chatty',
      'checkout::fast',
      'latency::chatty',
      'latency::fast',
      'tokens::chatty',
      'tokens::fast',
    ]);
    for (const r of Object.values(body.results) as Array<Record<string, unknown>>) {
      for (const field of [
        'test',
        'statistic',
        'p_value',
        'p_value_fdr',
        'effect',
        'ci_low',
        'ci_high',
        'n_per_arm',
        'srm_p',
        'permutations_used',
        'sample_cap_used',
        'window_days',
        'retention_truncated',
        'preliminary',
      ]) {
        expect(r).toHaveProperty(field);
      }
      expect(r.preliminary).toBe(false);
      expect(r.window_days).toBe(1);
      expect(r.srm_p).toBe(body.srm.p_value);
      const dist = r.distribution as { bin_edges: number[]; counts: Record<string, number[]> };
      expect(dist.bin_edges.length).toBe(21);
      expect(Object.keys(dist.counts).sort()).toEqual(['control', r.treatment as string].sort());
    }
  });

  it('finds the real effect and decides significance on the corrected p-value alone', () => {
    const latency = body.results['latency::fast']!;
    expect(latency.significant).toBe(true);
    expect(latency.effect).toBeLessThan(-60);
    expect(latency.ci_high).toBeLessThan(0);
    expect(latency.test).toBe('welch_t');
    expect(body.results['checkout::fast']?.test).toBe('two_proportion_z');
    for (const r of Object.values(body.results)) {
      expect(r.significant).toBe(r.p_value_fdr! < 0.05);
      expect(r.p_value_fdr).toBeGreaterThanOrEqual(r.p_value!);
    }
    const significant = Object.entries(body.results)
      .filter(([, r]) => r.significant)
      .map(([k]) => k);
    expect(significant).toEqual(['latency::fast']);
  });

  it('has a pair whose raw p is below 0.05 but which is not significant after correction', () => {
    const tokens = body.results['tokens::chatty']!;
    expect(tokens.p_value).toBeLessThan(0.05);
    expect(tokens.p_value_fdr).toBeGreaterThanOrEqual(0.05);
    expect(tokens.significant).toBe(false);
  });

  it('lists the summary entry in the same shape', async () => {
    const summary = (
      await h.call(acme.admin, { method: 'GET', url: '/v1/results/summary' })
    ).json();
    const entry = summary.find((s: { experiment_id: string }) => s.experiment_id === id);
    expect(entry.computed_for).toBe(today());
    expect(entry.results['latency::fast'].significant).toBe(true);
  });

  it('shows in-flight distributions on the live route without any p-value', async () => {
    const live = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${id}/live` })
    ).json();
    expect(Object.keys(live.distributions).sort()).toEqual(['checkout', 'latency', 'tokens']);
    expect(Object.keys(live.distributions.latency.counts).sort()).toEqual([
      'chatty',
      'control',
      'fast',
    ]);
    expect(JSON.stringify(live)).not.toContain('p_value');
  });

  it('uses an overridden method from the next run on, and audits the override', async () => {
    const res = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${id}/metrics/latency/method`,
      payload: { method: 'mann_whitney' },
    });
    expect(res.json()).toEqual({ metric: 'latency', method: 'mann_whitney', overridden: true });
    await runNightlyFor(h, today());
    const after = (await results(id)).json();
    expect(after.results['latency::fast'].test).toBe('mann_whitney');
    expect(after.results['latency::fast'].method_overridden).toBe(true);
    expect(after.results['latency::fast'].significant).toBe(true);
    const trail = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/audit?target_id=${id}` })
    ).json();
    expect(trail[0]).toMatchObject({
      action: 'experiment.method_overridden',
      details: { metric: 'latency', method: 'mann_whitney' },
    });
    const bad = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${id}/metrics/latency/method`,
      payload: { method: 'two_proportion_z' },
    });
    expect(bad.statusCode).toBe(400);
  });
});

describe('the SRM gate', () => {
  it('halts on skewed traffic: metrics withheld, srm_p reported', async () => {
    const { id } = await createExperiment(
      'skewed',
      [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      [metric('latency', 'latency', 'welch_t')],
    );
    const ts = new Date().toISOString();
    const events: object[] = [];
    for (let u = 0; u < 900; u++) {
      const variant = u < 600 ? 'control' : 'treatment';
      events.push({
        event_id: `s-${u}`,
        type: 'exposure',
        experiment_id: id,
        user_id: `s${u}`,
        timestamp: ts,
        variant,
      });
      events.push({
        event_id: `sm-${u}`,
        type: 'model_call',
        experiment_id: id,
        user_id: `s${u}`,
        timestamp: ts,
        latency_ms: 100 + (u % 7),
      });
    }
    await ingestAll(h, acme.secret, events);
    await runNightlyFor(h, today());
    const body = (await results(id)).json();
    expect(body.srm.halted).toBe(true);
    expect(body.srm.p_value).toBeLessThan(0.001);
    expect(body.srm.observed).toEqual({ control: 600, treatment: 300 });
    expect(body.results).toEqual({});
  });
});

describe('the evaluated-events threshold', () => {
  it('answers 404 with an arm at 199 evaluated events and results at 200', async () => {
    const { id } = await createExperiment(
      'threshold',
      [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      [metric('latency', 'latency', 'welch_t')],
    );
    const ts = new Date().toISOString();
    const exposure = (u: number, variant: string) => ({
      event_id: `t-${u}`,
      type: 'exposure',
      experiment_id: id,
      user_id: `t${u}`,
      timestamp: ts,
      variant,
    });
    const events = [];
    for (let u = 0; u < 199; u++) events.push(exposure(u, 'control'));
    for (let u = 199; u < 410; u++) events.push(exposure(u, 'treatment'));
    await ingestAll(h, acme.secret, events);
    await runNightlyFor(h, today());
    const collecting = await results(id);
    expect(collecting.statusCode).toBe(404);
    expect(collecting.json()).toEqual({
      type: '/problems/results-collecting',
      title: 'Collecting',
      status: 404,
      detail:
        'Experiment threshold is collecting: results appear once a pipeline run finds 200 evaluated events (exposures since the day it was created) in every arm. So far: control 199 of 200, treatment 211 of 200. The threshold is the setting ARBITER_MIN_EVENTS_PER_ARM. Live counts are on the live route meanwhile.',
      instance: `/v1/experiments/${id}/results`,
      events_per_arm: { control: 199, treatment: 211 },
      min_events_per_arm: 200,
      setting: 'ARBITER_MIN_EVENTS_PER_ARM',
      // Only exposures so far: the primary latency metric has no user with a value yet.
      primary_metrics: [
        {
          metric: 'latency',
          treatment: 'treatment',
          n_per_arm: { control: 0, treatment: 0 },
          mde: 0.05,
          users_needed_per_arm: null,
          days_to_decision: null,
        },
      ],
    });
    await ingestAll(h, acme.secret, [exposure(1000, 'control')]);
    // Before the next run the answer says every arm has enough and how to get the results now.
    const enough = (await results('threshold')).json();
    expect(enough.events_per_arm).toEqual({ control: 200, treatment: 211 });
    expect(enough.detail).toBe(
      `Experiment threshold is collecting: results appear once a pipeline run finds 200 evaluated events (exposures since the day it was created) in every arm. So far: control 200 of 200, treatment 211 of 200. The threshold is the setting ARBITER_MIN_EVENTS_PER_ARM. Every arm has enough now: the next pipeline run computes results (\`arbiter pipeline run --day ${today()}\`, or POST /v1/experiments/${id}/analyze for a preliminary run).`,
    );
    await runNightlyFor(h, today());
    const ready = await results(id);
    expect(ready.statusCode).toBe(200);
    expect(ready.json().arms).toEqual({
      control: { users: 200, events: 200 },
      treatment: { users: 211, events: 211 },
    });
  });
});

describe('manual runs', () => {
  it('are stored for good; the default view moves to the nightly run once it lands', async () => {
    const { id } = await createExperiment(
      'manual-then-nightly',
      [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      [metric('latency', 'latency', 'welch_t')],
    );
    const ts = new Date().toISOString();
    const rng = seeded(11);
    const events = [];
    for (let u = 0; u < 800; u++) {
      events.push({
        event_id: `mn-${u}`,
        type: 'exposure',
        experiment_id: id,
        user_id: `mn${u}`,
        timestamp: ts,
      });
      events.push({
        event_id: `mnc-${u}`,
        type: 'model_call',
        experiment_id: id,
        user_id: `mn${u}`,
        timestamp: ts,
        latency_ms: rng.normal(300, 40),
      });
    }
    await ingestAll(h, acme.secret, events);
    const manual = await h.call(acme.admin, {
      method: 'POST',
      url: `/v1/experiments/${id}/analyze`,
    });
    expect(manual.statusCode).toBe(200);
    const label = manual.json().computed_for as string;
    expect(label).toMatch(/^manual-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(manual.json().preliminary).toBe(true);
    expect(manual.json().results['latency::treatment'].preliminary).toBe(true);
    expect((await results(id)).json().computed_for).toBe(label);

    await runNightlyFor(h, today());
    const nightly = (await results(id)).json();
    expect(nightly.computed_for).toBe(today());
    expect(nightly.preliminary).toBe(false);
    expect(nightly.available_days).toEqual([today(), label]);
    const kept = await results(id, label);
    expect(kept.statusCode).toBe(200);
    expect(kept.json().results['latency::treatment'].preliminary).toBe(true);
    expect((await results(id, '2020-01-01')).statusCode).toBe(404);
    expect((await results(id, 'yesterday')).statusCode).toBe(400);
  });

  it('runs at any time: with too little data it answers collecting and leaves the results route at 404', async () => {
    const { id } = await createExperiment(
      'early-peek',
      [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      [],
    );
    const res = await h.call(acme.admin, { method: 'POST', url: `/v1/experiments/${id}/analyze` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'collecting',
      results: {},
      arms: { control: { users: 0 }, treatment: { users: 0 } },
    });
    expect((await results(id)).statusCode).toBe(404);
  });
});

describe('retention', () => {
  it('purges raw events but keeps the aggregates, and says so with retention_truncated', async () => {
    const { id } = await createExperiment(
      'retained',
      [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      [metric('latency', 'latency', 'welch_t')],
    );
    const ts = new Date().toISOString();
    const events = [];
    for (let u = 0; u < 600; u++) {
      events.push({
        event_id: `r-${u}`,
        type: 'exposure',
        experiment_id: id,
        user_id: `r${u}`,
        timestamp: ts,
      });
      events.push({
        event_id: `rc-${u}`,
        type: 'model_call',
        experiment_id: id,
        user_id: `r${u}`,
        timestamp: ts,
        latency_ms: 200 + (u % 13),
      });
    }
    await ingestAll(h, acme.secret, events);
    const before = (
      await h.call(acme.admin, { method: 'POST', url: `/v1/experiments/${id}/analyze` })
    ).json();
    expect(before.results['latency::treatment'].retention_truncated).toBe(false);
    // Eight days on, the free plan's 7-day retention has removed today's raw events.
    const purged = await purgeExpiredEvents(h.ctx, new Date(Date.now() + 8 * 86_400_000));
    expect(purged).toBeGreaterThanOrEqual(1200);
    const after = (
      await h.call(acme.admin, { method: 'POST', url: `/v1/experiments/${id}/analyze` })
    ).json();
    const r = after.results['latency::treatment'];
    expect(r.retention_truncated).toBe(true);
    expect(r.n_per_arm).toEqual(before.results['latency::treatment'].n_per_arm);
    expect(r.effect).toBeCloseTo(before.results['latency::treatment'].effect, 9);
  });

  it('keeps an expired event that is not folded yet until the fold has counted it', async () => {
    const { id } = await createExperiment(
      'late-import',
      [{ variant: 'control', weight: 100 }],
      [metric('latency', 'latency', 'welch_t')],
    );
    const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
    // 30 days old: history, which only an import carries (POST /v1/events takes 25 h)
    const res = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/events/import',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify([
        {
          event_id: 'late-1',
          type: 'model_call',
          experiment_id: id,
          user_id: 'late-user',
          timestamp: old,
          latency_ms: 250,
        },
      ]),
    });
    expect(res.json()).toEqual({ events: 1, errors: [], before_analysis_window: 1 });
    expect(await purgeExpiredEvents(h.ctx, new Date())).toBe(0);
    expect(await h.ctx.worker.foldAll()).toBe(1);
    expect(await purgeExpiredEvents(h.ctx, new Date())).toBe(1);
    const [row] = await rows<{ calls: number; latency_sum: number }>(
      h.ctx.db,
      sql`select calls::int, latency_sum::float8 as latency_sum from user_day_stats where user_id = 'late-user'`,
    );
    expect(row).toEqual({ calls: 1, latency_sum: 250 });
  });
});

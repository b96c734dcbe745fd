import { bucketOf, inCoverage, variantForBucket } from '@arbiter/bucketing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, webhookDeliveries } from '../../../src/db/schema.ts';
import { ingestAll } from '../../support/analysis-data.ts';
import { metric } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * The ramp's guard over HTTP on a test clock: a treatment whose error rate is three times
 * control's is rolled back within two guard intervals of its data being folded (the stored
 * evaluation, the audit entry, the webhooks, control served to everyone); with `on_violation:
 * pause` the same data pauses the ramp at its coverage and stops nothing; a primary metric,
 * however bad, is never tested.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
// The clock starts at the real instant so the live ingest path takes its events.
let instant = Math.floor(Date.now() / 60_000) * 60_000;
const clock = { now: () => new Date(instant) };
const MINUTE = 60_000;
const EVERY = 5 * MINUTE;

beforeAll(async () => {
  h = await startHarness({ ARBITER_MIN_EVENTS_PER_ARM: '50' }, { clock });
  acme = await h.org('acme_guard');
  const endpoint = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/webhook-endpoints',
    payload: { url: 'http://localhost:9/hooks' },
  });
  expect(endpoint.statusCode, endpoint.body).toBe(201);
});
afterAll(() => h.close());

const get = async (url: string) => (await h.call(acme.admin, { method: 'GET', url })).json();
const tick = () => h.ctx.rollouts.tick();
const events = async (type: string) =>
  (
    await h.ctx.db
      .select({ body: webhookDeliveries.body })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.orgId, acme.orgId), eq(webhookDeliveries.eventType, type)))
  ).map((r) => JSON.parse(r.body).data);
const audits = async (action: string, targetId: string) =>
  h.ctx.db
    .select({ details: auditLog.details, actor: auditLog.actorUserId })
    .from(auditLog)
    .where(and(eq(auditLog.targetId, targetId), eq(auditLog.action, action)));

/**
 * A started experiment at 50 % coverage with an error-rate guardrail and a primary conversion,
 * and its users' events as a client would send them: only covered users, each in the arm the
 * server buckets it to, one call each, failing for 5 % of control's users and 15 % of the
 * treatment's (three times as often), converting far less on the treatment.
 */
async function rampWithBrokenTreatment(name: string, onViolation: 'pause' | 'rollback') {
  const salt = `${name}-salt`;
  const created = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: {
      name,
      salt,
      bucket_count: 1000,
      status: 'draft',
      allocation: [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      variants: [
        { key: 'control', prompt: 'You are helpful.' },
        { key: 'treatment', prompt: 'Be concise.' },
      ],
      metrics: [
        metric('errors', 'error_rate', 'welch_t', 'guardrail'),
        metric('checkout', 'conversion', 'two_proportion_z'),
      ],
      rollout: {
        steps: [
          { coverage: 0.5, hold: 'P1D' },
          { coverage: 1, hold: 'P1D' },
        ],
        on_violation: onViolation,
        guardrails_every: 'PT5M',
      },
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const experiment = created.json() as {
    id: string;
    bucket_ranges: Array<{ variant: string; start: number; end: number }>;
  };
  const started = await h.call(acme.admin, {
    method: 'POST',
    url: `/v1/experiments/${name}/start`,
    payload: {},
  });
  expect(started.statusCode, started.body).toBe(200);
  const send = async () => {
    const timestamp = new Date(instant - 1000).toISOString();
    const sent: object[] = [];
    for (let i = 0; i < 3000; i++) {
      const user = `${name}-user-${i}`;
      if (!inCoverage(salt, user, 0.5)) continue;
      const arm = variantForBucket(experiment.bucket_ranges, bucketOf(salt, user, 1000));
      const fails = arm === 'control' ? i % 20 === 0 : i % 20 < 3;
      const converts = arm === 'control' ? i % 2 === 0 : i % 10 === 0;
      const base = { experiment_id: experiment.id, user_id: user, timestamp };
      sent.push({ ...base, event_id: `${name}-x-${i}`, type: 'exposure' });
      sent.push({
        ...base,
        event_id: `${name}-c-${i}`,
        type: 'model_call',
        latency_ms: 120,
        model: 'gpt-4o-mini',
        ...(fails ? { error: 'timeout' } : {}),
      });
      if (converts)
        sent.push({
          ...base,
          event_id: `${name}-b-${i}`,
          type: 'business_event',
          business_metric: 'checkout',
          value: 1,
        });
    }
    await ingestAll(h, acme.secret, sent);
  };
  return { id: experiment.id, send };
}

/** Ticks a minute at a time until `done` holds or `limit` has passed; the instant it held. */
async function tickUntil(done: () => Promise<boolean>, limit: number): Promise<number | null> {
  const until = instant + limit;
  while (instant < until) {
    instant += MINUTE;
    await tick();
    if (await done()) return instant;
  }
  return null;
}

describe('the guard with on_violation rollback', () => {
  const NAME = 'guard-rollback';
  let id: string;

  it('rolls a three-times error rate back within two intervals of its data being folded', async () => {
    const ramp = await rampWithBrokenTreatment(NAME, 'rollback');
    id = ramp.id;
    // An evaluation before any data: the guard tests nothing and does nothing.
    instant += EVERY;
    await tick();
    expect((await get(`/v1/experiments/${NAME}/rollout`)).guard).toMatchObject({
      state: 'ok',
      last_evaluation: { action: 'none', srm_p: null },
    });
    instant += MINUTE;
    await ramp.send();
    const foldedAt = instant;
    const stoppedAt = await tickUntil(
      async () => (await get(`/v1/experiments/${NAME}`)).status === 'stopped',
      2 * EVERY,
    );
    expect(stoppedAt).not.toBeNull();
    expect((stoppedAt as number) - foldedAt).toBeLessThanOrEqual(2 * EVERY);
    const experiment = await get(`/v1/experiments/${NAME}`);
    expect(experiment).toMatchObject({
      status: 'stopped',
      stop: { conclusion: 'rollback', served_variant: 'control' },
    });
  });

  it('stores the evaluation: its guardrail interval and p, the SRM p, the action', async () => {
    const view = await get(`/v1/experiments/${NAME}/rollout`);
    expect(view).toMatchObject({ state: 'ended', guard: { state: 'rolled_back' } });
    const acted = view.guard.last_action;
    expect(acted).toMatchObject({ action: 'rolled_back', step: 1, coverage: 0.5 });
    expect(acted.srm_p).toBeGreaterThan(0.001);
    expect(acted.reason).toContain('errors is worse on treatment');
    // Only the guardrail: the primary metric, worse as it is, is never the guard's.
    expect(acted.guardrails).toHaveLength(1);
    const [errors] = acted.guardrails;
    expect(errors).toMatchObject({
      metric: 'errors',
      treatment: 'treatment',
      direction: 'decrease',
      worse: true,
    });
    expect(errors.ci_low).toBeGreaterThan(0);
    expect(errors.p_value).toBeLessThan(0.05);
    const listed = await h.call(acme.admin, {
      method: 'GET',
      url: `/v1/experiments/${NAME}/rollout/evaluations?limit=1`,
    });
    expect(listed.headers['arbiter-has-more']).toBe('true');
    expect(listed.json()).toEqual([acted]);
    const next = await get(
      `/v1/experiments/${NAME}/rollout/evaluations?starting_after=${acted.id}`,
    );
    expect(next.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['none']));
    expect(next.every((e: { action: string }) => e.action === 'none')).toBe(true);
  });

  it('audits it, sends experiment.rolled_back, and serves control to everyone', async () => {
    expect(await audits('rollout.rolled_back', id)).toEqual([
      {
        actor: null,
        details: expect.objectContaining({ step: 1, coverage: 0.5, reason: expect.any(String) }),
      },
    ]);
    expect(await audits('experiment.stop', id)).toEqual([
      { actor: null, details: expect.objectContaining({ conclusion: 'rollback' }) },
    ]);
    expect(await events('experiment.rolled_back')).toEqual([
      expect.objectContaining({
        experiment_id: id,
        name: NAME,
        guardrails: [expect.objectContaining({ metric: 'errors', worse: true })],
      }),
    ]);
    expect(await events('experiment.stopped')).toEqual([
      expect.objectContaining({ experiment_id: id, conclusion: 'rollback', variant: 'control' }),
    ]);
    const assigned = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: id, user_id: `${NAME}-user-1` },
    });
    expect(assigned.json()).toMatchObject({ variant: 'control' });
  });
});

describe('the guard with on_violation pause', () => {
  const NAME = 'guard-pause';

  it('holds the coverage, stops nothing, audits and alerts', async () => {
    const ramp = await rampWithBrokenTreatment(NAME, 'pause');
    await ramp.send();
    const pausedAt = await tickUntil(
      async () => (await get(`/v1/experiments/${NAME}/rollout`)).state === 'paused',
      2 * EVERY,
    );
    expect(pausedAt).not.toBeNull();
    const view = await get(`/v1/experiments/${NAME}/rollout`);
    expect(view).toMatchObject({
      state: 'paused',
      paused_by: 'guard',
      step: 1,
      coverage: 0.5,
      next_step_at: null,
      guard: { state: 'paused', next_evaluation_at: null, last_action: { action: 'paused' } },
    });
    expect(view.paused_reason).toContain('errors is worse on treatment');
    expect((await get(`/v1/experiments/${NAME}`)).status).toBe('running');
    expect(await audits('rollout.paused', ramp.id)).toEqual([
      { actor: null, details: expect.objectContaining({ by: 'guard', step: 1 }) },
    ]);
    expect(await events('rollout.paused')).toEqual([
      expect.objectContaining({ experiment_id: ramp.id, by: 'guard' }),
    ]);
    // Past the step's hold, nothing advances and nothing is evaluated while it is paused.
    const evaluations = (await get(`/v1/experiments/${NAME}/rollout`)).evaluations.length;
    instant += 2 * 24 * 60 * MINUTE;
    await tick();
    expect(await get(`/v1/experiments/${NAME}/rollout`)).toMatchObject({
      state: 'paused',
      step: 1,
      coverage: 0.5,
    });
    expect((await get(`/v1/experiments/${NAME}/rollout`)).evaluations).toHaveLength(evaluations);
    expect((await get(`/v1/experiments/${NAME}`)).status).toBe('running');
  });
});

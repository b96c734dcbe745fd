import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/context.ts';
import { createContext } from '../../../src/create-context.ts';
import { auditLog, webhookDeliveries } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { logDestinationOf } from '../../support/run-log.ts';

/**
 * A ramp of three steps over HTTP on a test clock: it starts at step 1's coverage, advances
 * when a hold has passed (a new version, audited, an `experiment.rollout_advanced` event
 * queued), pauses and resumes, survives a restart in the middle of a hold (a new process on
 * the same database takes over), jumps, and ends with the experiment.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let instant = Date.parse('2026-11-02T09:00:00Z');
const clock = { now: () => new Date(instant) };
const MINUTE = 60_000;
const wait = (ms: number) => {
  instant += ms;
};
const NAME = 'model-swap';

beforeAll(async () => {
  h = await startHarness({}, { clock });
  acme = await h.org('acme_ramp');
  const endpoint = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/webhook-endpoints',
    payload: { url: 'http://localhost:9/hooks' },
  });
  expect(endpoint.statusCode, endpoint.body).toBe(201);
});
afterAll(() => h.close());

const get = async (url: string) => (await h.call(acme.admin, { method: 'GET', url })).json();
const post = (url: string, payload: object = {}) =>
  h.call(acme.admin, { method: 'POST', url, payload });
const ramp = () => get(`/v1/experiments/${NAME}/rollout`);
const coverageServed = async () => {
  const config = (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
  const entry = config.experiments.find((e: { name: string }) => e.name === NAME);
  return entry.coverage ?? 1;
};
const events = async (type: string) =>
  (
    await h.ctx.db
      .select({ body: webhookDeliveries.body })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.orgId, acme.orgId), eq(webhookDeliveries.eventType, type)))
  ).map((r) => JSON.parse(r.body).data);
const audits = async (action: string) =>
  h.ctx.db
    .select({ details: auditLog.details, actor: auditLog.actorUserId })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, acme.orgId), eq(auditLog.action, action)));

describe('a ramp of three steps on a test clock', () => {
  let tick: () => Promise<void> = () => h.ctx.rollouts.tick();

  it('starts at step 1’s coverage when the experiment starts', async () => {
    await h.experiment(acme.admin, {
      name: NAME,
      status: 'draft',
      rollout: {
        steps: [
          { coverage: 0.01, hold: 'PT1H' },
          { coverage: 0.05, hold: 'PT2H' },
          { coverage: 0.25, hold: 'P1D' },
        ],
        on_violation: 'pause',
      },
    });
    expect((await post(`/v1/experiments/${NAME}/rollout/pause`)).statusCode).toBe(404);
    const started = await post(`/v1/experiments/${NAME}/start`);
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json()).toMatchObject({ version: 2, coverage: 0.01 });
    expect(await ramp()).toMatchObject({
      state: 'running',
      step: 1,
      coverage: 0.01,
      guardrails_every: 'PT5M',
      next_step_at: new Date(instant + 60 * MINUTE).toISOString(),
    });
    expect(await coverageServed()).toBe(0.01);
  });

  it('holds until the hold has passed, then advances once: version, audit, webhook', async () => {
    wait(59 * MINUTE);
    await tick();
    expect((await ramp()).step).toBe(1);
    wait(MINUTE);
    await tick();
    await tick();
    expect(await ramp()).toMatchObject({ step: 2, coverage: 0.05 });
    expect((await get(`/v1/experiments/${NAME}`)).version).toBe(3);
    expect(await coverageServed()).toBe(0.05);
    expect(await audits('rollout.advanced')).toEqual([
      { actor: null, details: expect.objectContaining({ from_step: 1, step: 2, coverage: 0.05 }) },
    ]);
    expect(await events('experiment.rollout_advanced')).toEqual([
      expect.objectContaining({ name: NAME, step: 2, steps: 3, coverage: 0.05 }),
    ]);
  });

  it('pauses: nothing advances past the hold; resume starts the hold again', async () => {
    wait(30 * MINUTE);
    const paused = await post(`/v1/experiments/${NAME}/rollout/pause`, { reason: 'checking' });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toMatchObject({ state: 'paused', paused_by: 'user', next_step_at: null });
    expect((await post(`/v1/experiments/${NAME}/rollout/pause`)).statusCode).toBe(409);
    wait(3 * 60 * MINUTE);
    await tick();
    expect(await ramp()).toMatchObject({ state: 'paused', step: 2, coverage: 0.05 });
    expect(await events('rollout.paused')).toHaveLength(1);
    const resumed = await post(`/v1/experiments/${NAME}/rollout/resume`);
    expect(resumed.json()).toMatchObject({
      state: 'running',
      step: 2,
      next_step_at: new Date(instant + 120 * MINUTE).toISOString(),
    });
  });

  it('survives a restart in the middle of a hold: another process advances it once', async () => {
    wait(60 * MINUTE);
    // The first process stops; a new one opens the same database with its own context.
    await h.ctx.rollouts.stop();
    const second: Context = await createContext(h.ctx.config, {
      database: {
        db: h.ctx.db,
        kind: h.ctx.dbKind,
        pool: h.ctx.dbPool,
        dataDir: null,
        dump: null,
        close: async () => {},
      },
      clock,
      logDestination: logDestinationOf(),
      shards: [],
    });
    try {
      tick = () => second.rollouts.tick();
      await tick();
      expect((await ramp()).step).toBe(2);
      wait(60 * MINUTE);
      await tick();
      await tick();
      expect(await ramp()).toMatchObject({ step: 3, coverage: 0.25, next_step_at: null });
      expect(await coverageServed()).toBe(0.25);
      expect(await events('experiment.rollout_advanced')).toHaveLength(2);
      // The last step holds: nothing further to advance to.
      wait(2 * 24 * 60 * MINUTE);
      await tick();
      expect((await ramp()).step).toBe(3);
    } finally {
      await second.close();
    }
  });

  it('jumps to a step, refuses a coverage PUT while it ramps, and ends with the experiment', async () => {
    const jumped = await post(`/v1/experiments/${NAME}/rollout/jump`, { step: 1 });
    expect(jumped.statusCode, jumped.body).toBe(200);
    expect(jumped.json()).toMatchObject({ step: 1, coverage: 0.01 });
    expect((await post(`/v1/experiments/${NAME}/rollout/jump`, { step: 4 })).statusCode).toBe(400);
    const put = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${NAME}`,
      payload: { coverage: 1 },
    });
    expect(put.statusCode).toBe(409);
    expect(put.json()).toMatchObject({ state: 'running' });
    const stopped = await post(`/v1/experiments/${NAME}/stop`, { conclusion: 'rollback' });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(await ramp()).toMatchObject({ state: 'ended', next_step_at: null });
    expect((await post(`/v1/experiments/${NAME}/rollout/resume`)).statusCode).toBe(409);
  });
});

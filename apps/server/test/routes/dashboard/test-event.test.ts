import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let member: string;
let exp: string;

beforeAll(async () => {
  h = await startHarness();
  const acme = await h.org('acme');
  member = await h.token({
    sub: 'tess',
    name: 'Tess Member',
    email: 'tess@acme.test',
    org_id: 'acme',
    org_role: 'member',
  });
  exp = await h.experiment(acme.admin, { name: 'te' });
});
afterAll(() => h.close());

describe('POST /v1/experiments/{id}/test-event', () => {
  it('emits one exposure through the queue for the control arm, by a svc-test- user, marked as a test, audit-logged', async () => {
    const res = await h.call(member, { method: 'POST', url: `/v1/experiments/${exp}/test-event` });
    expect(res.statusCode).toBe(202);
    const { event_id, user_id, variant } = res.json();
    expect(user_id).toMatch(/^svc-test-/);
    expect(variant).toBe('control');
    // The live counts come from the aggregates, which the worker folds the event into.
    expect(
      (await h.call(member, { method: 'GET', url: `/v1/experiments/${exp}/live` })).json().arms,
    ).toEqual({});
    await h.ctx.worker.foldAll();
    const [row] = await h.ctx.db.select().from(events).where(eq(events.eventId, event_id));
    expect(row).toMatchObject({
      type: 'exposure',
      variant: 'control',
      isTest: true,
      metadata: { arbiter_test: true },
    });
    const live = (
      await h.call(member, { method: 'GET', url: `/v1/experiments/${exp}/live` })
    ).json();
    expect(live.arms).toEqual({ control: { exposures: 1, users: 1 } });
    const traffic = (
      await h.call(member, { method: 'GET', url: `/v1/experiments/${exp}/traffic` })
    ).json();
    expect(traffic.days).toEqual([
      {
        day: new Date().toISOString().slice(0, 10),
        exposures: { control: 1 },
        users: { control: 1 },
      },
    ]);
    const trail = (
      await h.call(member, { method: 'GET', url: `/v1/audit?target_id=${exp}` })
    ).json();
    expect(trail[0]).toMatchObject({
      action: 'experiment.test_event',
      actor: { email: 'tess@acme.test' },
      details: { event_id },
    });
  });

  it('answers 429 to the sixth within an hour, with Retry-After', async () => {
    for (let i = 2; i <= 5; i++) {
      expect(
        (await h.call(member, { method: 'POST', url: `/v1/experiments/${exp}/test-event` }))
          .statusCode,
      ).toBe(202);
    }
    const sixth = await h.call(member, {
      method: 'POST',
      url: `/v1/experiments/${exp}/test-event`,
    });
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json().type).toBe('/problems/test-event-limit');
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(3000);
    await h.ctx.worker.foldAll();
    const live = (
      await h.call(member, { method: 'GET', url: `/v1/experiments/${exp}/live` })
    ).json();
    expect(live.arms.control.exposures).toBe(5);
  });

  it('answers 404 for an unknown experiment', async () => {
    const res = await h.call(member, {
      method: 'POST',
      url: '/v1/experiments/00000000-0000-4000-8000-000000000000/test-event',
    });
    expect(res.statusCode).toBe(404);
  });
});

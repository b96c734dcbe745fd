import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedRun } from '../../../src/analysis/run/nightly-log.ts';
import { ingestQuarantine, memberships, users } from '../../../src/db/schema.ts';
import { usageMonth } from '../../../src/domain/billing/usage-month.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { exposureOf, foldEverything } from '../../support/ingest-probe.ts';

/**
 * The platform owner's views, checked against data this file makes: two orgs (acme with a
 * member, two experiments, events and feedback; globex with only its admin).
 */
let h: Harness;
let owner: string;
let acme: Awaited<ReturnType<Harness['org']>>;
let globex: Awaited<ReturnType<Harness['org']>>;
let experimentIds: string[];
/** Taken where it is used, not at load: a run that crosses midnight must not split a test. */
const today = () => new Date().toISOString().slice(0, 10);

const get = async (url: string) => {
  const res = await h.call(owner, { method: 'GET', url });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  h = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: 'boss@arbiter.test' });
  owner = await h.token({ sub: 'boss', email: 'boss@arbiter.test', org_id: 'platform-staff' });
  acme = await h.org('acme');
  globex = await h.org('globex');
  const member = await h.token({
    sub: 'mia',
    email: 'mia@acme.test',
    name: 'Mia',
    org_id: 'acme',
    org_role: 'member',
  });
  await h.call(member, { method: 'GET', url: '/v1/whoami' });
  experimentIds = [
    await h.experiment(acme.admin, { name: 'checkout-copy' }),
    await h.experiment(acme.admin, { name: 'summary-model' }),
  ];
});
afterAll(() => h.close());

describe('GET /v1/admin/health', () => {
  it('reports the database, the configured providers and no nightly run yet', async () => {
    const health = await get('/v1/admin/health');
    expect(health.database.reachable).toBe(true);
    expect(health.database.latency_ms).toBeGreaterThanOrEqual(0);
    expect(health.providers).toEqual({
      identity: true,
      identity_webhooks: false,
      identity_directory: false,
      judge: false,
      mail: false,
      billing: false,
      billing_webhooks: false,
    });
    expect(health.nightly).toMatchObject({
      schedule: '15 0 * * *',
      scheduler_in_this_process: true,
      last_run: null,
    });
    expect(health.nightly.next_run_at).toMatch(/T00:15:00\.000Z$/);
  });

  it('shows stored events waiting for the fold, then none once folded', async () => {
    const events = Array.from({ length: 7 }, (_, i) =>
      exposureOf(experimentIds[i % 2] as string, `health-${i}`, `user-${i}`),
    );
    const sent = await h.ingest(acme.publishable, {
      method: 'POST',
      url: '/v1/events',
      payload: { events },
    });
    expect(sent.statusCode).toBe(202);
    const waiting = (await get('/v1/admin/health')).ingest;
    expect(waiting.unfolded_events).toBe(7);
    expect(Date.parse(waiting.oldest_unfolded_at)).not.toBeNaN();
    expect(waiting.fold_lag_seconds).toBeGreaterThanOrEqual(0);
    await foldEverything(h);
    expect((await get('/v1/admin/health')).ingest).toMatchObject({
      unfolded_events: 0,
      oldest_unfolded_at: null,
      fold_lag_seconds: 0,
    });
  });

  it('lists quarantined events and counts them per org', async () => {
    await h.ctx.db.insert(ingestQuarantine).values({
      orgId: acme.orgId,
      eventId: 'poison-1',
      experimentId: experimentIds[0] as string,
      type: 'model_call',
      reason: 'numeric field overflow',
    });
    const { ingest } = await get('/v1/admin/health');
    expect(ingest.quarantined_events).toBe(1);
    expect(ingest.quarantined_by_org).toEqual([{ org_id: acme.orgId, events: 1 }]);
    expect(ingest.recent_quarantined).toEqual([
      expect.objectContaining({
        org_id: acme.orgId,
        event_id: 'poison-1',
        type: 'model_call',
        reason: 'numeric field overflow',
      }),
    ]);
  });

  it('shows the last nightly run and its outcome, failures included', async () => {
    const day = today();
    const ran = await h.call(owner, {
      method: 'POST',
      url: '/v1/admin/pipeline/run',
      payload: { day },
    });
    expect(ran.statusCode).toBe(200);
    expect((await get('/v1/admin/health')).nightly.last_run).toMatchObject({
      day,
      outcome: 'succeeded',
      experiments: 2,
      error: null,
    });
    const failing = recordedRun(
      h.ctx.db,
      { day: '2026-01-02', startedAt: new Date(), finishedAt: () => new Date(Date.now() + 60_000) },
      async () => {
        throw new Error('aggregates unreadable');
      },
    );
    await expect(failing).rejects.toThrow('aggregates unreadable');
    expect((await get('/v1/admin/health')).nightly.last_run).toMatchObject({
      day: '2026-01-02',
      outcome: 'failed',
      experiments: 0,
      error: 'aggregates unreadable',
    });
  });
});

describe('GET /v1/admin/overview', () => {
  it('totals orgs, users, experiments, this month’s events, the last 30 days and plans', async () => {
    const pinned = await h.call(owner, {
      method: 'PUT',
      url: `/v1/admin/orgs/${globex.orgId}/plan-override`,
      payload: { plan: 'pro' },
    });
    expect(pinned.statusCode, pinned.body).toBe(200);
    const overview = await get('/v1/admin/overview');
    expect(overview).toMatchObject({
      orgs: 2,
      // each org's admin (made by the harness) and acme's member
      users: 3,
      experiments: 2,
      month: usageMonth(new Date()),
      events_this_month: 7,
      plans: { free: 1, pro: 1, business: 0, enterprise: 0 },
    });
    expect(overview.events_per_day).toHaveLength(30);
    expect(overview.events_per_day.at(-1)).toEqual({ day: today(), events: 7 });
    expect(overview.events_per_day[0].day).toBe(
      new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10),
    );
    const before = overview.events_per_day.slice(0, -1);
    expect(before.every((d: { events: number }) => d.events === 0)).toBe(true);
  });
});

describe('GET /v1/admin/orgs and /v1/admin/orgs/{id}', () => {
  it('lists every org with plan, counts and usage', async () => {
    const list = await get('/v1/admin/orgs');
    expect(list.map((o: { external_id: string }) => o.external_id)).toEqual(['acme', 'globex']);
    const [a, g] = list;
    expect(a).toMatchObject({
      id: acme.orgId,
      plan: 'free',
      plan_source: 'free',
      override: null,
      subscription: null,
      member_count: 2,
      experiment_count: 2,
      usage: { plan: 'free', events: { used: 7, included: 50_000 } },
    });
    expect(g).toMatchObject({
      id: globex.orgId,
      plan: 'pro',
      plan_source: 'override',
      override: 'pro',
      member_count: 1,
      experiment_count: 0,
      usage: { plan: 'pro', events: { used: 0, included: 1_000_000 }, overage_billed: true },
    });
  });

  it('shows one org’s members with their roles, by internal or external id', async () => {
    const detail = await get(`/v1/admin/orgs/${acme.orgId}`);
    expect(detail).toMatchObject({ id: acme.orgId, external_id: 'acme', plan: 'free' });
    expect(
      detail.members.map((m: Record<string, unknown>) => [m.external_id, m.email, m.role]),
    ).toEqual([
      ['admin-of-acme', 'admin-of-acme@example.com', 'admin'],
      ['mia', 'mia@acme.test', 'member'],
    ]);
    expect(detail.usage.events.used).toBe(7);
    expect(await get('/v1/admin/orgs/acme')).toEqual(detail);
  });

  it('leaves out a membership deleted at the identity provider', async () => {
    const leo = await h.token({ sub: 'leo', email: 'leo@acme.test', org_id: 'acme' });
    await h.call(leo, { method: 'GET', url: '/v1/whoami' });
    const [row] = await h.ctx.db.select().from(users).where(eq(users.externalId, 'leo'));
    const members = async () => ({
      count: (await get('/v1/admin/orgs'))[0].member_count,
      ids: (await get('/v1/admin/orgs/acme')).members.map(
        (m: { external_id: string }) => m.external_id,
      ),
    });
    expect(await members()).toEqual({ count: 3, ids: ['admin-of-acme', 'mia', 'leo'] });
    await h.ctx.db
      .update(memberships)
      .set({ deletedAt: new Date() })
      .where(eq(memberships.userId, (row as { id: string }).id));
    expect(await members()).toEqual({ count: 2, ids: ['admin-of-acme', 'mia'] });
  });

  it('answers 404 for an unknown org', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'no-such-org']) {
      const res = await h.call(owner, { method: 'GET', url: `/v1/admin/orgs/${id}` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        type: '/problems/org-not-found',
        title: 'Org not found',
        status: 404,
        detail: `No organization has the id "${id}"`,
        instance: `/v1/admin/orgs/${id}`,
      });
    }
  });
});

describe('GET /v1/admin/inbox', () => {
  it('lists contact messages and every org’s feedback newest first, a page at a time', async () => {
    const contact = (name: string) =>
      h.app.inject({
        method: 'POST',
        url: '/v1/contact',
        payload: { name, email: `${name.toLowerCase()}@prospect.test`, message: `from ${name}` },
      });
    const feedback = (token: string, message: string) =>
      h.call(token, {
        method: 'POST',
        url: '/v1/feedback',
        payload: { message, category: 'idea' },
      });
    expect((await contact('Alice')).statusCode).toBe(202);
    expect((await feedback(acme.admin, 'acme would like CUPED')).statusCode).toBe(201);
    expect((await contact('Bob')).statusCode).toBe(202);
    expect((await feedback(globex.admin, 'globex: dark mode')).statusCode).toBe(201);

    const first = await get('/v1/admin/inbox?limit=3');
    expect(first.items.map((i: { message: string }) => i.message)).toEqual([
      'globex: dark mode',
      'from Bob',
      'acme would like CUPED',
    ]);
    expect(first.items[0]).toMatchObject({
      source: 'feedback',
      category: 'idea',
      org: { id: globex.orgId, external_id: 'globex' },
      user: { email: 'admin-of-globex@example.com' },
    });
    expect(first.items[1]).toMatchObject({
      source: 'contact',
      name: 'Bob',
      email: 'bob@prospect.test',
      company: null,
      kind: 'other',
      mail_status: 'not_configured',
    });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await get(`/v1/admin/inbox?limit=3&cursor=${first.next_cursor}`);
    expect(second.items.map((i: { message: string }) => i.message)).toEqual(['from Alice']);
    expect(second.next_cursor).toBeNull();
    const whole = await get('/v1/admin/inbox');
    expect(whole.items).toEqual([...first.items, ...second.items]);
  });

  it('refuses a cursor it did not give out', async () => {
    const res = await h.call(owner, { method: 'GET', url: '/v1/admin/inbox?cursor=yesterday' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: '/problems/validation-error',
      detail: '"yesterday" is not a cursor this inbox gave out',
    });
  });
});

describe('GET /v1/whoami and platform owners', () => {
  it('says whether the caller is a platform owner, as the owner routes decide it', async () => {
    const claims = { sub: 'boss', email: 'Boss@Arbiter.test', org_id: 'platform-staff' };
    const callers = {
      owner,
      'owner, other case': await h.token(claims),
      'owner, email not verified': await h.token({ ...claims, email_verified: false }),
      member: await h.token({ sub: 'mia', email: 'mia@acme.test', org_id: 'acme' }),
      admin: acme.admin,
    };
    const answers: Record<string, [boolean, number]> = {};
    for (const [who, token] of Object.entries(callers)) {
      const me = await h.call(token, { method: 'GET', url: '/v1/whoami' });
      expect(me.statusCode, me.body).toBe(200);
      const inbox = await h.call(token, { method: 'GET', url: '/v1/admin/inbox?limit=1' });
      answers[who] = [me.json().platform_owner, inbox.statusCode];
    }
    expect(answers).toEqual({
      owner: [true, 200],
      'owner, other case': [true, 200],
      'owner, email not verified': [false, 403],
      member: [false, 403],
      admin: [false, 403],
    });
  });
});

import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetingTallies, usageCounters } from '../../../src/db/schema.ts';
import { exposuresForUsers } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let globex: Awaited<ReturnType<Harness['org']>>;
let targeted: string;
let plain: string;
let foreign: string;

const TODAY = new Date().toISOString().slice(0, 10);
const YESTERDAY = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('tallies_acme');
  globex = await h.org('tallies_globex');
  targeted = await h.experiment(acme.admin, {
    name: 'pro-only',
    targeting: { plan: 'pro' },
    metrics: [],
  });
  plain = await h.experiment(acme.admin, { name: 'everyone', metrics: [] });
  foreign = await h.experiment(globex.admin, { name: 'globex-pro', targeting: { plan: 'pro' } });
});
afterAll(() => h.close());

const report = (key: string, tallies: unknown) =>
  h.ingest(key, { method: 'POST', url: '/v1/targeting-tallies', payload: { tallies } });

const storedRows = (experimentId: string) =>
  h.ctx.db
    .select({
      day: targetingTallies.day,
      matched: targetingTallies.matched,
      excluded: targetingTallies.excluded,
    })
    .from(targetingTallies)
    .where(eq(targetingTallies.experimentId, experimentId))
    .orderBy(targetingTallies.day);

describe('POST /v1/targeting-tallies takes the secret key only', () => {
  it('refuses the publishable key (it ships in client code) and stores nothing', async () => {
    const tally = { experiment_id: targeted, day: TODAY, matched: 1_000_000, excluded: 0 };
    const res = await report(acme.publishable, [tally]);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      type: '/problems/invalid-credential',
      status: 401,
      detail: 'This route needs the secret key (svc_sk_); a publishable key may not use it',
    });
    expect(await storedRows(targeted)).toEqual([]);
  });
});

describe('POST /v1/targeting-tallies refuses what it cannot read', () => {
  const good = () => ({ experiment_id: targeted, day: TODAY, matched: 1, excluded: 1 });
  // The cases change a good tally when the test runs: the experiment exists only by then.
  it.each([
    ['a non-id experiment', { experiment_id: 'pro-only' }, '#/tallies/1/experiment_id'],
    ['an impossible day', { day: '2026-02-30' }, '#/tallies/1/day'],
    ['a negative count', { excluded: -1 }, '#/tallies/1/excluded'],
    ['a fractional count', { matched: 1.5 }, '#/tallies/1/matched'],
    ['a field of its own', { user_id: 'u1' }, '#/tallies/1/user_id'],
    ['a day after tomorrow', { day: '2999-01-01' }, '#/tallies/1/day'],
  ])(
    '%s: a 400 problem pointing at it, and nothing of the request stored',
    async (_, change, pointer) => {
      const bad = { ...good(), ...change };
      const res = await report(acme.secret, [good(), bad]);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().type).toBe('/problems/validation-error');
      expect(res.json().errors.map((e: { pointer: string }) => e.pointer)).toEqual([pointer]);
      expect(await storedRows(targeted)).toEqual([]);
    },
  );

  it('refuses an empty list and more than 1000 tallies', async () => {
    expect((await report(acme.secret, [])).statusCode).toBe(400);
    const many = Array.from({ length: 1001 }, () => good());
    const res = await report(acme.secret, many);
    expect(res.statusCode).toBe(400);
    expect(await storedRows(targeted)).toEqual([]);
  });
});

describe('POST /v1/targeting-tallies adds counts', () => {
  it('sums reports per experiment and day, within a request and across requests', async () => {
    const first = await report(acme.secret, [
      { experiment_id: targeted, day: YESTERDAY, matched: 3, excluded: 1 },
      { experiment_id: targeted, day: TODAY, matched: 2, excluded: 5 },
      { experiment_id: targeted.toUpperCase(), day: TODAY, matched: 1, excluded: 0 },
    ]);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ accepted: 3, rejected: [] });
    const second = await report(acme.secret, [
      { experiment_id: targeted, day: TODAY, matched: 10, excluded: 20 },
    ]);
    expect(second.json()).toEqual({ accepted: 1, rejected: [] });
    expect(await storedRows(targeted)).toEqual([
      { day: YESTERDAY, matched: 3, excluded: 1 },
      { day: TODAY, matched: 13, excluded: 25 },
    ]);
  });

  it('leaves out, by pointer, ids of no experiment of the key’s org, and keeps the rest', async () => {
    const res = await report(acme.secret, [
      { experiment_id: foreign, day: TODAY, matched: 7, excluded: 7 },
      { experiment_id: plain, day: TODAY, matched: 4, excluded: 6 },
      {
        experiment_id: '00000000-0000-4000-8000-000000000000',
        day: TODAY,
        matched: 1,
        excluded: 1,
      },
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      accepted: 1,
      rejected: [
        { pointer: '#/tallies/0/experiment_id', detail: 'no experiment of this org has this id' },
        { pointer: '#/tallies/2/experiment_id', detail: 'no experiment of this org has this id' },
      ],
    });
    expect(await storedRows(foreign)).toEqual([]);
    expect(await storedRows(plain)).toEqual([{ day: TODAY, matched: 4, excluded: 6 }]);
  });

  it('meters nothing: the org’s usage counters stay untouched', async () => {
    const usage = () =>
      h.ctx.db.select().from(usageCounters).where(eq(usageCounters.orgId, acme.orgId));
    const before = await usage();
    const res = await report(acme.secret, [
      { experiment_id: targeted, day: TODAY, matched: 100, excluded: 100 },
    ]);
    expect(res.statusCode).toBe(200);
    expect(await usage()).toEqual(before);
    const [today] = (await storedRows(targeted)).filter((r) => r.day === TODAY);
    expect(today).toEqual({ day: TODAY, matched: 113, excluded: 125 });
  });
});

describe('the results route’s targeting', () => {
  beforeAll(async () => {
    for (const [id, prefix] of [
      [targeted, 't'],
      [plain, 'p'],
    ] as const) {
      const sent = await h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/events',
        payload: { events: exposuresForUsers(id, 600, { prefix }) },
      });
      expect(sent.statusCode).toBe(202);
    }
    await h.ctx.worker.foldAll();
    // A day before the experiment existed lies outside every window of its runs.
    await report(acme.secret, [
      { experiment_id: targeted, day: '2020-01-01', matched: 1000, excluded: 1000 },
    ]);
  });

  const results = async (id: string) => {
    const ran = await h.call(acme.admin, { method: 'POST', url: `/v1/experiments/${id}/analyze` });
    expect(ran.statusCode, ran.body).toBe(200);
    const res = await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${id}/results` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('sums the tallies of the run’s window for an experiment with targeting', async () => {
    const body = await results(targeted);
    // The experiment was created today: yesterday's tally is outside the window too.
    expect(body.targeting).toEqual({
      matched: 113,
      excluded: 125,
      excluded_share: 125 / 238,
      days: 1,
    });
  });

  it('carries no targeting for an experiment without targeting', async () => {
    const body = await results(plain);
    expect(body).not.toHaveProperty('targeting');
  });
});

describe('POST /v1/assign tallies its own checks', () => {
  it('counts distinct users per day that reached the targeting; untargeted experiments none', async () => {
    const id = await h.experiment(acme.admin, {
      name: 'assign-tallied',
      targeting: { plan: 'pro' },
      metrics: [],
    });
    const assign = (experiment: string, user: string, plan: string) =>
      h.ingest(acme.secret, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: experiment, user_id: user, attributes: { plan } },
      });
    const plans = ['pro', 'free', 'pro', 'team', 'free'];
    // Twice each, the second time with another plan: the first check of the day counts.
    for (const [i, plan] of plans.entries()) await assign('assign-tallied', `u${i}`, plan);
    for (const [i] of plans.entries()) await assign('assign-tallied', `u${i}`, 'pro');
    for (const [i, plan] of plans.entries()) await assign('everyone', `u${i}`, plan);
    const before = await storedRows(plain);
    await h.ctx.assignTallies.flush();
    expect(await storedRows(id)).toEqual([{ day: TODAY, matched: 2, excluded: 3 }]);
    expect(await storedRows(plain)).toEqual(before);
  });
});

import { bucketOf } from '@arbiter/bucketing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOrgSummaries } from '../../../src/domain/org-summaries.ts';
import { ingestAll, runNightlyFor, seeded, today } from '../../support/analysis-data.ts';
import { metric } from '../../support/builders.ts';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('holdouts');
});
afterAll(() => h.close());

const post = (url: string, payload: object) => h.call(acme.admin, { method: 'POST', url, payload });
const put = (url: string, payload: object) => h.call(acme.admin, { method: 'PUT', url, payload });
const get = (url: string) => h.call(acme.admin, { method: 'GET', url });
const config = async () =>
  (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json();
const assign = async (experiment: string, user: string) =>
  (
    await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experiment, user_id: user },
    })
  ).json() as { variant: string | null; reason?: string };

interface HoldoutBody {
  id: string;
  salt: string;
  bucket_count: number;
  ranges: Array<{ start: number; end: number }>;
}

describe('holdouts', () => {
  let before: { id: string };
  let q4: HoldoutBody;

  it('holds ⌈bucket_count × percent ÷ 100⌉ buckets out of the named experiments, served in the config', async () => {
    before = (await post('/v1/experiments', experimentConfig({ name: 'before' }))).json();
    const other = (await post('/v1/experiments', experimentConfig({ name: 'other' }))).json();
    const version = (await config()).config_version;
    const res = await post('/v1/holdouts', {
      name: 'q4',
      salt: 'holdout-q4',
      bucket_count: 999,
      percent: 2.5,
      experiments: ['before', other.id],
      metrics: [metric('checkout', 'conversion', 'two_proportion_z')],
    });
    expect(res.statusCode).toBe(201);
    q4 = res.json();
    // 999 × 2.5 % = 24.975: rounded up
    expect(q4).toMatchObject({
      name: 'q4',
      salt: 'holdout-q4',
      bucket_count: 999,
      percent: 2.5,
      experiments: [before.id, other.id],
      ranges: [{ start: 0, end: 25 }],
      version: 1,
    });
    expect((await get('/v1/holdouts/q4')).json()).toEqual(q4);
    expect((await get(`/v1/holdouts/${q4.id}`)).json()).toEqual(q4);
    expect((await get('/v1/holdouts')).json()).toEqual([q4]);
    const served = await config();
    expect(served.config_version).toBeGreaterThan(version);
    expect(served.holdouts).toEqual([
      {
        id: q4.id,
        name: 'q4',
        salt: 'holdout-q4',
        bucket_count: 999,
        ranges: [{ start: 0, end: 25 }],
      },
    ]);
    const byName = new Map(served.experiments.map((e: { name: string }) => [e.name, e]));
    expect(byName.get('before')).toMatchObject({ holdouts: [q4.id] });
    expect(byName.get('other')).toMatchObject({ holdouts: [q4.id] });
    // the holdout's own row is no experiment of the config, the list or the paths
    expect(served.experiments).toHaveLength(2);
    expect((await get('/v1/experiments')).json()).toHaveLength(2);
    expect((await get(`/v1/experiments/${q4.id}`)).statusCode).toBe(404);
    expect(await assign(q4.id, 'u1')).toMatchObject({
      variant: null,
      reason: 'unknown_experiment',
    });
    const audit = (await get(`/v1/audit?target_id=${q4.id}`)).json();
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['holdout.created']);
  });

  it('"all" covers the experiments created after the holdout, in creation order of the holdouts', async () => {
    const all = (
      await post('/v1/holdouts', {
        name: 'global',
        bucket_count: 100,
        percent: 10,
        experiments: 'all',
      })
    ).json();
    expect(all.salt).toMatch(/^holdout-[0-9a-f]{16}$/);
    expect(all.ranges).toEqual([{ start: 0, end: 10 }]);
    await post('/v1/experiments', experimentConfig({ name: 'after' }));
    await put('/v1/holdouts/q4', { experiments: ['before', 'after'] });
    const byName = new Map(
      (await config()).experiments.map((e: { name: string; holdouts?: string[] }) => [e.name, e]),
    );
    expect(byName.get('before')).toMatchObject({ holdouts: [q4.id] });
    expect(byName.get('other')).not.toHaveProperty('holdouts');
    expect(byName.get('after')).toMatchObject({ holdouts: [q4.id, all.id] });
  });

  it('gives a held-out user null in every experiment of the holdout, and no one else', async () => {
    let held = 0;
    for (let i = 0; i < 600; i++) {
      const user = `user-${i}`;
      const out = bucketOf(q4.salt, user, q4.bucket_count) < 25;
      const inBefore = await assign('before', user);
      const inOther = await assign('other', user);
      const inAfter = await assign('after', user);
      if (out) {
        held += 1;
        expect(inAfter).toMatchObject({ variant: null, reason: 'held_out' });
        expect(inBefore).toEqual({
          variant: null,
          config_version: expect.any(Number),
          reason: 'held_out',
        });
      } else expect(inBefore.variant).not.toBeNull();
      // other is no longer in q4
      expect(inOther.variant).not.toBeNull();
    }
    expect(held).toBeGreaterThan(5);
  });

  it('refuses a shrinking percent and frozen fields with pointers; growing moves general users in', async () => {
    const shrink = await put('/v1/holdouts/q4', { percent: 2 });
    expect(shrink.statusCode).toBe(400);
    expect(shrink.json()).toMatchObject({
      type: '/problems/allocation-not-sticky',
      errors: [{ pointer: '#/percent' }],
    });
    const salt = await put('/v1/holdouts/q4', { salt: 'other' });
    expect(salt.json()).toMatchObject({
      type: '/problems/frozen-field',
      errors: [{ pointer: '#/salt' }],
    });
    const unknown = await put('/v1/holdouts/q4', { experiments: ['before', 'nope'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([
      { pointer: '#/experiments/1', detail: 'no experiment "nope" in your org' },
    ]);
    const grow = await put('/v1/holdouts/q4', { percent: 5 });
    expect(grow.statusCode).toBe(200);
    expect(grow.json()).toMatchObject({ percent: 5, ranges: [{ start: 0, end: 50 }], version: 3 });
    const audit = (await get(`/v1/audit?target_id=${q4.id}`)).json();
    expect(audit[0]).toMatchObject({
      action: 'holdout.updated',
      details: { version: 3, changed: ['percent'], moved_buckets: { start: 25, end: 50 } },
    });
    const name = await post('/v1/holdouts', {
      name: 'q4',
      bucket_count: 10,
      percent: 1,
      experiments: [],
    });
    expect(name.json()).toMatchObject({ type: '/problems/holdout-name-taken' });
  });

  it('takes held-out and general exposures through /v1/events; nightly results compare them within SRM', async () => {
    const rng = seeded(29);
    const holdout = (
      await post('/v1/holdouts', {
        name: 'measured',
        salt: 'holdout-measured',
        bucket_count: 1000,
        percent: 30,
        experiments: 'all',
        metrics: [metric('checkout', 'conversion', 'two_proportion_z')],
      })
    ).json();
    const ts = new Date().toISOString();
    const events: object[] = [];
    const split = { holdout: 0, general: 0 };
    for (let u = 0; u < 1500; u++) {
      const user = `m-${u}`;
      // as a client sends it: the holdout's bucket decides the variant
      const variant =
        bucketOf(holdout.salt, user, holdout.bucket_count) < holdout.ranges[0].end
          ? 'holdout'
          : 'general';
      split[variant] += 1;
      events.push({
        event_id: `x-${u}`,
        type: 'exposure',
        experiment_id: holdout.id,
        user_id: user,
        variant,
        timestamp: ts,
      });
      if (rng.next() < (variant === 'general' ? 0.3 : 0.2))
        events.push({
          event_id: `b-${u}`,
          type: 'business_event',
          experiment_id: holdout.id,
          user_id: user,
          variant,
          business_metric: 'checkout',
          value: 1,
          timestamp: ts,
        });
    }
    const wrong = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            event_id: 'w',
            type: 'exposure',
            experiment_id: holdout.id,
            user_id: 'w',
            variant: 'control',
            timestamp: ts,
          },
        ],
      },
    });
    expect(wrong.statusCode).toBe(400);
    await ingestAll(h, acme.secret, events);
    // Before a run: the collecting answer names the holdout and only the pipeline run (a
    // holdout has no live route and no manual analysis).
    const collecting = await get(`/v1/holdouts/${holdout.id}/results`);
    expect(collecting.statusCode).toBe(404);
    expect(collecting.json().detail).toMatch(/^Holdout measured is collecting:/);
    expect(collecting.json().detail).not.toMatch(/live route|\/analyze/);
    const summary = await runNightlyFor(h, today());
    expect(summary.experiments).toContainEqual(
      expect.objectContaining({ experiment_id: holdout.id, status: 'computed' }),
    );
    const res = await get(`/v1/holdouts/${holdout.id}/results`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.experiment_id).toBe(holdout.id);
    expect(body.srm.halted).toBe(false);
    expect(body.srm.p_value).toBeGreaterThan(0.001);
    const checkout = body.results['checkout::general'];
    expect(checkout.n_per_arm).toEqual({ holdout: split.holdout, general: split.general });
    expect(checkout.effect).toBeGreaterThan(0);
    expect(typeof checkout.p_value_fdr).toBe('number');
    expect((await get('/v1/holdouts/nope/results')).json().type).toBe(
      '/problems/holdout-not-found',
    );
    // the experiments' summary lists no holdout, though the holdout has computed results
    const listed = (await get('/v1/results/summary')).json();
    expect(listed.map((s: { experiment_id: string }) => s.experiment_id)).not.toContain(holdout.id);
    // the import takes a holdout's exposures as any experiment's
    const csv = `event_id,type,experiment_id,user_id,timestamp,variant\nimp-1,exposure,${holdout.id},m-1,${ts},general\n`;
    const imported = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/events/import',
      headers: { 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(imported.json()).toMatchObject({ events: 1, errors: [] });
  });

  it('counts no holdout among the org’s experiments in the platform owner’s view', async () => {
    const orgs = await listOrgSummaries(h.ctx.db, new Date(), true);
    const org = orgs.find((o) => o.id === acme.orgId);
    // before, other, after: the three holdouts' rows are not experiments
    expect(org?.experiment_count).toBe(3);
  });
});

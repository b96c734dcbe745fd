import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

interface Vectors {
  patterns: Array<{ pattern: string; safe: boolean; reason?: string }>;
}

// The shared rule's cases, read in place as every evaluator reads them.
const vectors = JSON.parse(
  readFileSync(new URL('../../../../../testdata/regex-safety.json', import.meta.url), 'utf8'),
) as Vectors;

// Statically safe, but searched unanchored it backtracks to the fourth power of the length.
const SLOW = 'a*a*a*b';
const CATASTROPHIC = '^(a+)+$';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let owner: string;

beforeAll(async () => {
  h = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: 'boss@arbiter.test' });
  owner = await h.token({ sub: 'boss', email: 'boss@arbiter.test', org_id: 'platform-staff' });
  acme = await h.org('regex-safety');
});
afterAll(() => h.close());

const create = (name: string, targeting: unknown) =>
  h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name, targeting }),
  });
const assign = async (experiment: string, name: string) =>
  (
    await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experiment, user_id: 'u1', attributes: { name } },
    })
  ).json() as { variant: string | null; reason?: string };

/** Replaces an experiment's stored targeting behind the API's back, as a row written before the rule. */
async function plant(experimentId: string, targeting: unknown): Promise<void> {
  await h.ctx.db.execute(
    sql`update experiment_versions set config = jsonb_set(config, '{targeting}', ${JSON.stringify(targeting)}::jsonb)
        where experiment_id = ${experimentId}`,
  );
  h.ctx.orgState.invalidate(acme.orgId);
}

describe('saving a pattern', () => {
  it('refuses one that breaks the static rule, saying why, and stores nothing', async () => {
    const res = await create('catastrophic', { $or: [{ name: { $regexi: CATASTROPHIC } }] });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors).toEqual([
      {
        pointer: '#/targeting/$or/0/name/$regexi',
        detail: expect.stringContaining('a repeated group holds a quantifier'),
      },
    ]);
    expect(res.json().detail).toContain('ReDoS');
    const read = await h.call(acme.admin, { method: 'GET', url: '/v1/experiments/catastrophic' });
    expect(read.statusCode).toBe(404);
  });

  it('refuses one the ReDoS analyser finds super-linear beyond the square', async () => {
    const res = await create('slow', { name: { $regex: SLOW } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      {
        pointer: '#/targeting/name/$regex',
        detail: expect.stringContaining('recheck) finds degree-4 polynomial backtracking'),
      },
    ]);
  });

  it('refuses it on an update too, and leaves the stored targeting as it was', async () => {
    expect((await create('kept', { name: { $regex: '^a' } })).statusCode).toBe(201);
    for (const pattern of [CATASTROPHIC, SLOW]) {
      const res = await h.call(acme.admin, {
        method: 'PUT',
        url: '/v1/experiments/kept',
        payload: { targeting: { name: { $regex: pattern } } },
      });
      expect(res.statusCode).toBe(400);
    }
    const read = await h.call(acme.admin, { method: 'GET', url: '/v1/experiments/kept' });
    expect(read.json().targeting).toEqual({ name: { $regex: '^a' } });
  });

  it('accepts every safe pattern of the vectors', async () => {
    const safe = vectors.patterns.filter((v) => v.safe);
    const res = await create('all-safe', {
      $or: safe.map((v) => ({ name: { $regex: v.pattern } })),
    });
    expect(res.statusCode).toBe(201);
    expect(safe.length).toBeGreaterThan(20);
  });
});

describe('a pattern stored before the rule', () => {
  let statics: string;
  let slow: string;

  beforeAll(async () => {
    statics = (await create('planted', { name: { $regex: '^a+!$' } })).json().id;
    slow = (await create('planted-slow', { name: { $regex: '^b' } })).json().id;
    await plant(statics, { name: { $regex: CATASTROPHIC } });
    await plant(slow, { name: { $regex: SLOW } });
  });

  it('is never run: the rule refuses it before any scan', async () => {
    // "aaa" would match were the pattern run; the attack would backtrack for seconds.
    expect(await assign('planted', 'aaa')).toMatchObject({ variant: null, reason: 'not_targeted' });
    expect(await assign('planted', `${'a'.repeat(29)}!`)).toMatchObject({
      variant: null,
      reason: 'not_targeted',
    });
  });

  it('is found by the start-up scan, denied, and listed on the health route', async () => {
    // Before the scan the server still runs what only the analyser refuses.
    expect((await assign('planted-slow', 'aaab')).variant).not.toBeNull();
    const found = await h.ctx.patterns.scan(new Date());
    expect(found.map((f) => f.experiment).sort()).toEqual(['planted', 'planted-slow']);
    expect(await assign('planted-slow', 'aaab')).toMatchObject({
      variant: null,
      reason: 'not_targeted',
    });
    // Another experiment with a pattern the analyser lets through is not touched.
    expect((await assign('kept', 'abc')).variant).not.toBeNull();

    const res = await h.call(owner, { method: 'GET', url: '/v1/admin/health' });
    expect(res.statusCode).toBe(200);
    const { patterns } = res.json();
    expect(Date.parse(patterns.scanned_at)).not.toBeNaN();
    expect(patterns.refused).toEqual(
      expect.arrayContaining([
        {
          org_id: acme.orgId,
          experiment_id: statics,
          experiment: 'planted',
          pointer: '/name/$regex',
          pattern: CATASTROPHIC,
          insensitive: false,
          reason: 'a repeated group holds a quantifier',
          found_by: 'rule',
        },
        {
          org_id: acme.orgId,
          experiment_id: slow,
          experiment: 'planted-slow',
          pointer: '/name/$regex',
          pattern: SLOW,
          insensitive: false,
          reason: 'the ReDoS analyser (recheck) finds degree-4 polynomial backtracking',
          found_by: 'analyser',
        },
      ]),
    );
    expect(patterns.refused).toHaveLength(2);
  });

  it('is neither served nor run while a scan is under way: both wait for its verdict', async () => {
    const during = (await create('planted-during', { name: { $regex: '^c' } })).json().id;
    await plant(during, { name: { $regex: 'c*c*c*d' } });
    const scan = h.ctx.patterns.scan(new Date());
    const config = await h.ingest(acme.publishable, { method: 'GET', url: '/v1/config' });
    expect(config.statusCode).toBe(200);
    const served = (config.json().experiments as Array<{ id: string; targeting?: unknown }>).find(
      (e) => e.id === during,
    );
    expect(served?.targeting).toEqual({ $not: {} });
    expect(await assign('planted-during', 'cccd')).toMatchObject({
      variant: null,
      reason: 'not_targeted',
    });
    expect((await scan).map((f) => f.experiment)).toContain('planted-during');
  });
});

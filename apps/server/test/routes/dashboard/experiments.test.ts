import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, experiments, orgs } from '../../../src/db/schema.ts';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let admin: string;
let member: string;

beforeAll(async () => {
  h = await startHarness();
  admin = await h.token({
    sub: 'ada',
    name: 'Ada Lovelace',
    email: 'ada@acme.test',
    org_id: 'acme',
    org_role: 'admin',
  });
  member = await h.token({
    sub: 'bob',
    name: 'Bob Member',
    email: 'bob@acme.test',
    org_id: 'acme',
    org_role: 'member',
  });
});
afterAll(() => h.close());

async function create(token: string, overrides: Record<string, unknown> = {}) {
  return h.call(token, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig(overrides),
  });
}

async function configVersion(): Promise<number> {
  const [org] = await h.ctx.db.select().from(orgs).where(eq(orgs.externalId, 'acme'));
  return org!.configVersion;
}

/** A config override with one latency metric, changed by `extra`. */
function oneMetric(extra: Record<string, unknown>) {
  return {
    metrics: [
      {
        name: 'x',
        kind: 'latency',
        category: 'primary',
        method_default: 'welch_t',
        metric_version: 1,
        shared_org_wide: false,
        ...extra,
      },
    ],
  };
}

describe('POST /v1/experiments', () => {
  it('stores version 1 with an id, its variants and bucket ranges', async () => {
    const res = await create(admin, { name: 'checkout-prompt' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      name: 'checkout-prompt',
      version: 1,
      salt: 'salt-1',
      bucket_count: 1000,
      bucket_ranges: [
        { variant: 'control', start: 0, end: 500 },
        { variant: 'treatment', start: 500, end: 1000 },
      ],
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.location).toBe(`/v1/experiments/${body.id}`);
    expect(body.variants[1]).toEqual({
      key: 'treatment',
      prompt: 'Be concise.',
      variables: { temperature: 0.2 },
    });
  });

  it('is open to members', async () => {
    expect((await create(member)).statusCode).toBe(201);
  });

  it('adds allocation variants missing from variants, and leaves uncovered buckets unenrolled', async () => {
    const res = await create(admin, {
      variants: undefined,
      allocation: [
        { variant: 'a', weight: 10 },
        { variant: 'b', weight: 15.5 },
      ],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().variants).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect(res.json().bucket_ranges).toEqual([
      { variant: 'a', start: 0, end: 100 },
      { variant: 'b', start: 100, end: 255 },
    ]);
  });

  it('raises the org config_version', async () => {
    const before = await configVersion();
    await create(admin);
    expect(await configVersion()).toBe(before + 1);
  });

  it('refuses a duplicate name in the org with a 400 problem pointing at the name', async () => {
    await create(admin, { name: 'dup' });
    const res = await create(admin, { name: 'dup' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toEqual({
      type: '/problems/experiment-name-taken',
      title: 'Experiment name already used',
      status: 400,
      detail: 'An experiment named "dup" already exists in your org',
      instance: '/v1/experiments',
      errors: [{ pointer: '#/name', detail: 'is already used in this org' }],
    });
  });

  it.each([
    ['a missing required field', { salt: undefined }, '#/salt', 'is required'],
    ['a salt with ":"', { salt: 'a:b' }, '#/salt', 'must match pattern "^[^:]+$"'],
    ['a bucket_count of 0', { bucket_count: 0 }, '#/bucket_count', 'must be >= 1'],
    ['a string bucket_count', { bucket_count: '100' }, '#/bucket_count', 'must be integer'],
    ['an unknown field', { colour: 'red' }, '#/colour', 'is not a known field'],
    [
      'weights over 100%',
      {
        allocation: [
          { variant: 'control', weight: 60 },
          { variant: 'treatment', weight: 41 },
        ],
      },
      '#/allocation',
      'weights sum to 101%, more than 100%',
    ],
    [
      'a weight finer than 0.01',
      { allocation: [{ variant: 'control', weight: 10.005 }] },
      '#/allocation/0/weight',
      'must be a multiple of 0.01',
    ],
    ['an empty allocation', { allocation: [] }, '#/allocation', 'must NOT have fewer than 1 items'],
    [
      'a duplicate slice',
      {
        allocation: [
          { variant: 'control', weight: 10 },
          { variant: 'control', weight: 10 },
        ],
      },
      '#/allocation/1/variant',
      'variant already has a slice',
    ],
    [
      'a UUID-shaped name',
      { name: '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e' },
      '#/name',
      'must not be shaped like a UUID: experiments are addressed by name or id',
    ],
    [
      'a metric without metric_version',
      {
        metrics: [
          {
            name: 'x',
            kind: 'latency',
            category: 'primary',
            method_default: 'welch_t',
            shared_org_wide: false,
          },
        ],
      },
      '#/metrics/0/metric_version',
      'is required',
    ],
    [
      'an unknown metric kind',
      {
        metrics: [
          {
            name: 'x',
            kind: 'vibes',
            category: 'primary',
            method_default: 'welch_t',
            metric_version: 1,
            shared_org_wide: false,
          },
        ],
      },
      '#/metrics/0/kind',
      'must be equal to one of the allowed values',
    ],
    [
      'a z-test on a continuous metric',
      {
        metrics: [
          {
            name: 'x',
            kind: 'latency',
            category: 'primary',
            method_default: 'two_proportion_z',
            metric_version: 1,
            shared_org_wide: false,
          },
        ],
      },
      '#/metrics/0/method_default',
      'two_proportion_z needs a binary kind (conversion, retention), not latency',
    ],
    [
      'a judge metric without rubric',
      {
        metrics: [
          {
            name: 'q',
            kind: 'judge',
            category: 'primary',
            method_default: 'welch_t',
            metric_version: 1,
            shared_org_wide: false,
          },
        ],
      },
      '#/metrics/0/rubric',
      'is required for judge metrics',
    ],
    [
      'a direction other than increase or decrease',
      oneMetric({ direction: 'up' }),
      '#/metrics/0/direction',
      'must be equal to one of the allowed values',
    ],
    ['an mde of 0', oneMetric({ mde: 0 }), '#/metrics/0/mde', 'must be > 0'],
    ['a negative mde', oneMetric({ mde: -0.1 }), '#/metrics/0/mde', 'must be > 0'],
    ['an mde above 10', oneMetric({ mde: 10.5 }), '#/metrics/0/mde', 'must be <= 10'],
    ['an mde that is not a number', oneMetric({ mde: '5%' }), '#/metrics/0/mde', 'must be number'],
    [
      'duplicate variant keys',
      { variants: [{ key: 'control' }, { key: 'control' }, { key: 'treatment' }] },
      '#/variants/1/key',
      'duplicate variant key',
    ],
    [
      'a bad variant key',
      { variants: [{ key: 'has space' }] },
      '#/variants/0/key',
      'must match pattern "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"',
    ],
  ])(
    'rejects %s with a pointer to it and stores nothing',
    async (_label, overrides, pointer, detail) => {
      const listBefore = (await h.call(admin, { method: 'GET', url: '/v1/experiments' })).json()
        .length;
      const res = await create(admin, overrides);
      expect(res.statusCode).toBe(400);
      const problem = res.json();
      expect(problem.type).toBe('/problems/validation-error');
      expect(problem.status).toBe(400);
      expect(problem.errors).toContainEqual({ pointer, detail });
      expect((await h.call(admin, { method: 'GET', url: '/v1/experiments' })).json().length).toBe(
        listBefore,
      );
    },
  );

  it('gives one name to exactly one of several creates sent at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => create(admin, { name: 'raced' })),
    );
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const res of answers.filter((r) => r.statusCode === 400)) {
      expect(res.json().type).toBe('/problems/experiment-name-taken');
    }
    const rows = await h.ctx.db.select().from(experiments).where(eq(experiments.name, 'raced'));
    expect(rows).toHaveLength(1);
  });

  it('changes nothing for a taken name: no config_version bump, no audit record', async () => {
    expect((await create(admin, { name: 'kept' })).statusCode).toBe(201);
    const audited = async () => (await h.ctx.db.select({ n: count() }).from(auditLog))[0]!.n;
    const before = { version: await configVersion(), audit: await audited() };
    expect((await create(admin, { name: 'kept' })).statusCode).toBe(400);
    expect({ version: await configVersion(), audit: await audited() }).toEqual(before);
  });
});

describe('GET /v1/experiments and /v1/experiments/{id}', () => {
  it('lists the latest version of each and reads one', async () => {
    const created = (await create(admin, { name: 'read-me' })).json();
    await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload: { description: 'v2' },
    });
    const list = (await h.call(member, { method: 'GET', url: '/v1/experiments' })).json();
    const entry = list.find((e: { id: string }) => e.id === created.id);
    expect(entry.version).toBe(2);
    const one = await h.call(member, { method: 'GET', url: `/v1/experiments/${created.id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({
      id: created.id,
      version: 2,
      description: 'v2',
      name: 'read-me',
    });
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid'])(
    'answers 404 for unknown id %s',
    async (id) => {
      const res = await h.call(admin, { method: 'GET', url: `/v1/experiments/${id}` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        type: '/problems/experiment-not-found',
        title: 'Experiment not found',
        status: 404,
        detail: `No experiment with the id or name "${id}" in your org`,
        instance: `/v1/experiments/${id}`,
      });
    },
  );
});

describe('PUT /v1/experiments/{id}', () => {
  it('mints a new version, keeps salt and buckets, and lists versions newest first', async () => {
    const created = (
      await create(admin, {
        name: 'evolving',
        allocation: [
          { variant: 'control', weight: 45 },
          { variant: 'treatment', weight: 45 },
        ],
      })
    ).json();
    const before = await configVersion();
    const v2 = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload: {
        allocation: [
          { variant: 'control', weight: 40 },
          { variant: 'treatment', weight: 45 },
          { variant: 'long', weight: 10 },
        ],
      },
    });
    expect(v2.statusCode).toBe(200);
    expect(v2.json()).toMatchObject({ version: 2, salt: 'salt-1', bucket_count: 1000 });
    // control shrank from 450 to 400: its top 50 buckets are retired, never handed on;
    // the new variant takes the never-used tail
    expect(v2.json().bucket_ranges).toEqual([
      { variant: 'control', start: 0, end: 400 },
      { variant: 'treatment', start: 450, end: 900 },
      { variant: 'long', start: 900, end: 1000 },
    ]);
    expect(v2.json().variants.map((v: { key: string }) => v.key)).toEqual([
      'control',
      'treatment',
      'long',
    ]);
    expect(await configVersion()).toBe(before + 1);

    const v3 = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload: { name: 'evolved' },
    });
    expect(v3.json()).toMatchObject({ version: 3, name: 'evolved' });
    const versions = (
      await h.call(member, { method: 'GET', url: `/v1/experiments/${created.id}/versions` })
    ).json();
    expect(versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(versions[2].name).toBe('evolving');
    expect(versions[2].bucket_ranges).toEqual(created.bucket_ranges);
  });

  it('gives a new variant never-used buckets only', async () => {
    const created = (
      await create(admin, {
        allocation: [
          { variant: 'control', weight: 30 },
          { variant: 'treatment', weight: 30 },
        ],
      })
    ).json();
    const res = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload: {
        allocation: [
          { variant: 'control', weight: 30 },
          { variant: 'treatment', weight: 30 },
          { variant: 'new', weight: 20 },
        ],
      },
    });
    expect(res.json().bucket_ranges).toEqual([
      { variant: 'control', start: 0, end: 300 },
      { variant: 'treatment', start: 300, end: 600 },
      { variant: 'new', start: 600, end: 800 },
    ]);
  });

  it('refuses growth that would need retired buckets, and changes nothing', async () => {
    const created = (await create(admin)).json();
    const shrink = {
      allocation: [
        { variant: 'control', weight: 10 },
        { variant: 'treatment', weight: 50 },
      ],
    };
    expect(
      (
        await h.call(admin, {
          method: 'PUT',
          url: `/v1/experiments/${created.id}`,
          payload: shrink,
        })
      ).statusCode,
    ).toBe(200);
    const grow = {
      allocation: [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
    };
    const res = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload: grow,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: '/problems/allocation-not-sticky',
      status: 400,
      errors: [
        {
          pointer: '#/allocation',
          detail:
            'growing control (+400) needs 400 never-used buckets but only 0 of 1000 remain; retired buckets never return to a variant',
        },
      ],
    });
    const latest = (
      await h.call(admin, { method: 'GET', url: `/v1/experiments/${created.id}` })
    ).json();
    expect(latest.version).toBe(2);
  });

  it.each([
    ['salt', { salt: 'other' }, 'salt is frozen at "salt-1" for the life of the experiment'],
    [
      'bucket_count',
      { bucket_count: 10 },
      'bucket_count is frozen at 1000 for the life of the experiment',
    ],
  ])('refuses a change of %s', async (field, payload, detail) => {
    const created = (await create(admin)).json();
    const res = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: '/problems/frozen-field',
      detail,
      errors: [{ pointer: `#/${field}` }],
    });
  });

  it('accepts salt and bucket_count when they equal the stored ones', async () => {
    const created = (await create(admin)).json();
    const res = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload: { salt: 'salt-1', bucket_count: 1000, description: 'same bucketing' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().version).toBe(2);
  });

  it('refuses an empty change, a taken name and an unknown experiment', async () => {
    const a = (await create(admin, { name: 'taken-a' })).json();
    const b = (await create(admin, { name: 'taken-b' })).json();
    const empty = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${a.id}`,
      payload: {},
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().type).toBe('/problems/validation-error');
    const taken = await h.call(admin, {
      method: 'PUT',
      url: `/v1/experiments/${b.id}`,
      payload: { name: 'taken-a' },
    });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().type).toBe('/problems/experiment-name-taken');
    const unknown = await h.call(admin, {
      method: 'PUT',
      url: '/v1/experiments/00000000-0000-4000-8000-000000000000',
      payload: { description: 'x' },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('writes audit entries that name the acting user', async () => {
    const created = (await create(admin, { name: 'audited' })).json();
    await h.call(member, {
      method: 'PUT',
      url: `/v1/experiments/${created.id}`,
      payload: { description: 'by bob' },
    });
    const trail = (
      await h.call(admin, { method: 'GET', url: `/v1/audit?target_id=${created.id}` })
    ).json();
    expect(trail).toHaveLength(2);
    expect(trail[0]).toMatchObject({
      action: 'experiment.updated',
      target_type: 'experiment',
      target_id: created.id,
      details: { version: 2, changed: ['description'] },
      actor: { name: 'Bob Member', email: 'bob@acme.test' },
    });
    expect(trail[1]).toMatchObject({
      action: 'experiment.created',
      actor: { name: 'Ada Lovelace', email: 'ada@acme.test' },
    });
  });
});

describe('GET /v1/experiments/{id}/versions', () => {
  it('answers 404 for an unknown experiment', async () => {
    const res = await h.call(admin, {
      method: 'GET',
      url: '/v1/experiments/00000000-0000-4000-8000-000000000000/versions',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('/problems/experiment-not-found');
  });
});

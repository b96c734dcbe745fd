import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

/**
 * The experiment lifecycle over HTTP: every allowed transition and every refused one, the audit
 * entries, the config version each move mints, the member's 403, PUT of a stopped or archived
 * experiment, the list's status filter, and what the config and POST /v1/assign serve.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let member: string;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('lifecycle');
  member = await h.token({ sub: 'member-of-lifecycle', org_id: 'lifecycle', org_role: 'member' });
});
afterAll(() => h.close());

const create = async (overrides: Record<string, unknown> = {}) => {
  const res = await h.call(acme.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig(overrides),
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; name: string; status: string };
};
const move = (id: string, transition: string, payload?: object, token = acme.admin) =>
  h.call(token, {
    method: 'POST',
    url: `/v1/experiments/${id}/${transition}`,
    ...(payload === undefined ? {} : { payload }),
  });
const configVersion = async () =>
  (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json().config_version;
const configEntry = async (id: string) =>
  (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' }))
    .json()
    .experiments.find((e: { id: string }) => e.id === id);
const assign = async (name: string, user: string) =>
  (
    await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: name, user_id: user },
    })
  ).json();
const audit = async (id: string) =>
  (await h.call(acme.admin, { method: 'GET', url: `/v1/audit?target_id=${id}` }))
    .json()
    .map((e: { action: string; details: object }) => ({ action: e.action, details: e.details }));

const ALL = ['start', 'stop', 'archive', 'unarchive'] as const;
const STOP = { conclusion: 'ship', variant: 'treatment', reason: 'faster, no worse' };

describe('creating', () => {
  it('creates running by default and draft when asked; any other status is a 400', async () => {
    expect((await create()).status).toBe('running');
    const draft = await create({ status: 'draft' });
    expect(draft.status).toBe('draft');
    expect((await create({ status: 'running' })).status).toBe('running');
    for (const status of ['stopped', 'archived', 'paused']) {
      const res = await h.call(acme.admin, {
        method: 'POST',
        url: '/v1/experiments',
        payload: experimentConfig({ status }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().type).toBe('/problems/validation-error');
    }
    const got = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${draft.id}` })
    ).json();
    expect({ status: got.status, stop: got.stop }).toEqual({ status: 'draft', stop: null });
  });
});

describe('the allowed transitions', () => {
  it('draft → running → stopped (ship) → archived → stopped, each audited and minting a config version', async () => {
    const e = await create({ status: 'draft' });
    const versions = [await configVersion()];
    const started = await move(e.id, 'start');
    expect(started.statusCode).toBe(200);
    expect(started.json()).toMatchObject({ id: e.id, status: 'running', stop: null });
    versions.push(await configVersion());
    const stopped = await move(e.id, 'stop', STOP);
    expect(stopped.statusCode).toBe(200);
    const stop = stopped.json().stop;
    expect(stop).toEqual({
      conclusion: 'ship',
      served_variant: 'treatment',
      reason: 'faster, no worse',
      stopped_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      stopped_by: expect.any(String),
    });
    const actor = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/audit?target_id=${e.id}` })
    ).json()[0].actor;
    expect(stop.stopped_by).toBe(actor.name ?? actor.email ?? actor.id);
    versions.push(await configVersion());
    const archived = await move(e.id, 'archive');
    expect(archived.json()).toMatchObject({ status: 'archived', stop });
    versions.push(await configVersion());
    const back = await move(e.id, 'unarchive');
    expect(back.json()).toMatchObject({ status: 'stopped', stop });
    versions.push(await configVersion());
    expect(versions).toEqual(versions.map((_, i) => versions[0] + i));
    const got = (
      await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${e.id}` })
    ).json();
    expect(got).toEqual(back.json());
    expect((await audit(e.id)).reverse()).toEqual([
      { action: 'experiment.created', details: { name: e.name, version: 1, status: 'draft' } },
      { action: 'experiment.start', details: { from: 'draft', to: 'running' } },
      {
        action: 'experiment.stop',
        details: {
          from: 'running',
          to: 'stopped',
          conclusion: 'ship',
          served_variant: 'treatment',
          reason: 'faster, no worse',
        },
      },
      { action: 'experiment.archive', details: { from: 'stopped', to: 'archived' } },
      { action: 'experiment.unarchive', details: { from: 'archived', to: 'stopped' } },
    ]);
  });

  it('draft → archived → draft', async () => {
    const e = await create({ status: 'draft' });
    const archived = await move(e.id, 'archive');
    expect(archived.json()).toMatchObject({ status: 'archived', stop: null });
    const back = await move(e.name, 'unarchive');
    expect(back.json()).toMatchObject({ status: 'draft', stop: null });
  });

  it('serves the control after rollback and inconclusive; ship may name the control', async () => {
    for (const [body, served] of [
      [{ conclusion: 'rollback' }, 'control'],
      [{ conclusion: 'inconclusive', reason: 'too little traffic' }, 'control'],
      [{ conclusion: 'ship', variant: 'control', reason: '' }, 'control'],
    ] as const) {
      const e = await create();
      const res = await move(e.id, 'stop', body);
      expect(res.statusCode).toBe(200);
      expect(res.json().stop).toMatchObject({
        conclusion: body.conclusion,
        served_variant: served,
        reason: 'reason' in body && body.reason !== '' ? body.reason : null,
      });
    }
  });
});

describe('the refused transitions', () => {
  /** Every (status, transition) pair not allowed answers the full 409 problem. */
  it('answers 409 naming the current status and the transitions allowed from it', async () => {
    const draft = await create({ status: 'draft' });
    const running = await create();
    const stopped = await create();
    await move(stopped.id, 'stop', STOP);
    const archived = await create();
    await move(archived.id, 'stop', { conclusion: 'rollback' });
    await move(archived.id, 'archive');
    const allowed: Record<string, string[]> = {
      draft: ['start', 'archive'],
      running: ['stop'],
      stopped: ['archive'],
      archived: ['unarchive'],
    };
    const ids: Record<string, string> = {
      draft: draft.id,
      running: running.id,
      stopped: stopped.id,
      archived: archived.id,
    };
    let refused = 0;
    for (const [status, id] of Object.entries(ids)) {
      for (const t of ALL.filter((x) => !allowed[status]!.includes(x))) {
        const before = (
          await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${id}` })
        ).json();
        const version = await configVersion();
        const res = await move(id, t, t === 'stop' ? STOP : undefined);
        expect(res.statusCode).toBe(409);
        const next = allowed[status]!.join(' or ');
        expect(res.json()).toEqual({
          type: '/problems/invalid-transition',
          title: 'Transition not allowed',
          status: 409,
          detail: `The experiment is ${status}: ${t} is not allowed; from ${status} it may only ${next}`,
          instance: `/v1/experiments/${id}/${t}`,
          current_status: status,
          allowed_transitions: allowed[status],
        });
        const after = (
          await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${id}` })
        ).json();
        expect(after).toEqual(before);
        expect(await configVersion()).toBe(version);
        refused += 1;
      }
    }
    expect(refused).toBe(11);
  });

  it('refuses a PUT of a stopped or archived experiment with the same problem', async () => {
    const e = await create();
    await move(e.id, 'stop', STOP);
    const put = () =>
      h.call(acme.admin, {
        method: 'PUT',
        url: `/v1/experiments/${e.id}`,
        payload: { description: 'changed' },
      });
    const stopped = await put();
    expect(stopped.statusCode).toBe(409);
    expect(stopped.json()).toMatchObject({
      type: '/problems/invalid-transition',
      current_status: 'stopped',
      allowed_transitions: ['archive'],
    });
    await move(e.id, 'archive');
    expect((await put()).json()).toMatchObject({
      current_status: 'archived',
      allowed_transitions: ['unarchive'],
    });
    // a draft and a running experiment still change
    const draft = await create({ status: 'draft' });
    const ok = await h.call(acme.admin, {
      method: 'PUT',
      url: `/v1/experiments/${draft.id}`,
      payload: { description: 'changed' },
    });
    expect(ok.json()).toMatchObject({ status: 'draft', description: 'changed', version: 2 });
  });

  it('refuses a ship of an unknown variant and a malformed stop with a 400, changing nothing', async () => {
    const e = await create();
    const version = await configVersion();
    const unknown = await move(e.id, 'stop', { conclusion: 'ship', variant: 'nope' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      type: '/problems/validation-error',
      errors: [{ pointer: '#/variant', detail: 'must be one of control, treatment' }],
    });
    for (const body of [
      {},
      { conclusion: 'ship' },
      { conclusion: 'done' },
      { conclusion: 'rollback', variant: 'control' },
    ]) {
      const res = await move(e.id, 'stop', body);
      expect(res.statusCode).toBe(400);
    }
    expect(
      (await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${e.id}` })).json().status,
    ).toBe('running');
    expect(await configVersion()).toBe(version);
  });

  it('answers a member 403 on every transition, changing nothing', async () => {
    const e = await create({ status: 'draft' });
    for (const t of ALL) {
      const res = await move(e.id, t, t === 'stop' ? STOP : undefined, member);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        type: '/problems/insufficient-role',
        detail: 'This needs the admin role or higher; you are member',
      });
    }
    expect(
      (await h.call(member, { method: 'GET', url: `/v1/experiments/${e.id}` })).json().status,
    ).toBe('draft');
  });

  it('answers 404 for an experiment of no one', async () => {
    const res = await move('00000000-0000-4000-8000-000000000000', 'start');
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('/problems/experiment-not-found');
  });
});

describe('the list', () => {
  it('hides archived experiments unless status names them, and filters by status', async () => {
    const org = await h.org('lifecycle-list');
    const make = async (status?: string) =>
      (
        await h.call(org.admin, {
          method: 'POST',
          url: '/v1/experiments',
          payload: experimentConfig(status === undefined ? {} : { status }),
        })
      ).json().id as string;
    const draft = await make('draft');
    const running = await make();
    const stopped = await make();
    await h.call(org.admin, {
      method: 'POST',
      url: `/v1/experiments/${stopped}/stop`,
      payload: STOP,
    });
    const archived = await make('draft');
    await h.call(org.admin, { method: 'POST', url: `/v1/experiments/${archived}/archive` });
    const list = async (query: string) => {
      const res = await h.call(org.admin, { method: 'GET', url: `/v1/experiments${query}` });
      expect(res.statusCode).toBe(200);
      return res
        .json()
        .map((e: { id: string }) => e.id)
        .sort();
    };
    expect(await list('')).toEqual([draft, running, stopped].sort());
    expect(await list('?status=draft,running')).toEqual([draft, running].sort());
    expect(await list('?status=archived')).toEqual([archived]);
    expect(await list('?status=stopped,archived')).toEqual([stopped, archived].sort());
    const bad = await h.call(org.admin, {
      method: 'GET',
      url: '/v1/experiments?status=running,paused',
    });
    expect(bad.statusCode).toBe(400);
    // The schema's pattern names the statuses, so a client generated from it never sends one.
    expect(bad.json().detail).toContain(
      'status must match pattern "^ *(draft|running|stopped|archived)',
    );
  });
});

describe('what the config and POST /v1/assign serve', () => {
  const USERS = Array.from({ length: 200 }, (_, i) => `user-${i}`);

  it('draft: in the config as draft, assign null with reason draft', async () => {
    const e = await create({ status: 'draft' });
    expect(await configEntry(e.id)).toMatchObject({ status: 'draft' });
    expect((await configEntry(e.id)).served_variant).toBeUndefined();
    expect(await assign(e.name, 'user-1')).toMatchObject({ variant: null, reason: 'draft' });
    await move(e.id, 'start');
    // running is written as no status at all, as every config before the lifecycle
    expect((await configEntry(e.id)).status).toBeUndefined();
    expect((await assign(e.name, 'user-1')).variant).not.toBeNull();
  });

  it('stopped: every user gets the served variant; archived: absent, unknown_experiment', async () => {
    const e = await create({
      allocation: [
        { variant: 'control', weight: 30 },
        { variant: 'treatment', weight: 30 },
      ],
    });
    const before = await Promise.all(USERS.map((u) => assign(e.name, u)));
    expect(before.some((a) => a.reason === 'not_enrolled')).toBe(true);
    const version = await configVersion();
    await move(e.id, 'stop', STOP);
    expect(await configVersion()).toBe(version + 1);
    expect(await configEntry(e.id)).toMatchObject({
      status: 'stopped',
      served_variant: 'treatment',
    });
    const after = await Promise.all(USERS.map((u) => assign(e.name, u)));
    expect(
      new Set(after.map((a) => JSON.stringify({ variant: a.variant, reason: a.reason }))),
    ).toEqual(new Set([JSON.stringify({ variant: 'treatment' })]));
    await move(e.id, 'archive');
    expect(await configEntry(e.id)).toBeUndefined();
    expect(await assign(e.name, 'user-1')).toMatchObject({
      variant: null,
      reason: 'unknown_experiment',
    });
    expect(await assign(e.id, 'user-1')).toMatchObject({
      variant: null,
      reason: 'unknown_experiment',
    });
  });

  it('accepts events of a stopped and of an archived experiment as before', async () => {
    const e = await create();
    await move(e.id, 'stop', { conclusion: 'rollback' });
    await move(e.id, 'archive');
    const res = await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/events',
      payload: {
        events: [
          {
            event_id: `after-archive-${e.id}`,
            type: 'exposure',
            experiment_id: e.id,
            user_id: 'user-1',
            timestamp: new Date().toISOString(),
          },
        ],
      },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 1 });
  });
});

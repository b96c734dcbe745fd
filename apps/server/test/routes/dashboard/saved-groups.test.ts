import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('saved-groups');
});
afterAll(() => h.close());

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  h.call(acme.admin, { method, url, ...(payload === undefined ? {} : { payload }) });
const config = async () =>
  (await h.ingest(acme.secret, { method: 'GET', url: '/v1/config' })).json() as {
    config_version: number;
    saved_groups?: Record<string, unknown[]>;
  };
const assign = async (experiment: string, user: string, attributes: object) =>
  (
    await h.ingest(acme.secret, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experiment, user_id: user, attributes },
    })
  ).json();

describe('saved groups', () => {
  it('are created, read by id and by key, listed, and shipped in /v1/config', async () => {
    expect((await config()).saved_groups).toBeUndefined();
    const before = (await config()).config_version;
    const created = await call('POST', '/v1/saved-groups', {
      key: 'beta-testers',
      values: ['ann', 'bob', 42],
      description: 'Early access',
    });
    expect(created.statusCode).toBe(201);
    const group = created.json();
    expect(group).toMatchObject({
      key: 'beta-testers',
      values: ['ann', 'bob', 42],
      description: 'Early access',
      version: 1,
    });
    expect(created.headers.location).toBe(`/v1/saved-groups/${group.id}`);
    expect((await call('GET', `/v1/saved-groups/${group.id}`)).json()).toEqual(group);
    expect((await call('GET', '/v1/saved-groups/beta-testers')).json()).toEqual(group);
    await call('POST', '/v1/saved-groups', { key: 'admins', values: ['root'] });
    const listed = (await call('GET', '/v1/saved-groups')).json();
    expect(listed.map((g: { key: string }) => g.key)).toEqual(['admins', 'beta-testers']);
    const served = await config();
    expect(served.config_version).toBe(before + 2);
    expect(served.saved_groups).toEqual({ admins: ['root'], 'beta-testers': ['ann', 'bob', 42] });
  });

  it('refuses a taken key, a UUID-shaped key and values that are not strings or numbers', async () => {
    const taken = await call('POST', '/v1/saved-groups', { key: 'admins', values: [] });
    expect(taken.statusCode).toBe(400);
    expect(taken.json().type).toBe('/problems/saved-group-key-taken');
    const uuid = await call('POST', '/v1/saved-groups', {
      key: '0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e',
      values: [],
    });
    expect(uuid.statusCode).toBe(400);
    expect(uuid.json().errors[0].pointer).toBe('#/key');
    const objects = await call('POST', '/v1/saved-groups', { key: 'objs', values: [{ id: 1 }] });
    expect(objects.statusCode).toBe(400);
    expect(objects.json().type).toBe('/problems/validation-error');
    expect((await call('GET', '/v1/saved-groups/objs')).statusCode).toBe(404);
  });

  it('change their values with a new version and an audit entry; the key stays', async () => {
    const changed = await call('PUT', '/v1/saved-groups/admins', { values: ['root', 'ops'] });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ key: 'admins', values: ['root', 'ops'], version: 2 });
    const renamed = await call('PUT', '/v1/saved-groups/admins', { key: 'operators' });
    expect(renamed.statusCode).toBe(400);
    expect(renamed.json().type).toBe('/problems/frozen-field');
    const audit = (await call('GET', `/v1/audit?target_id=${changed.json().id}`)).json();
    const actions = (audit.data ?? audit).map((e: { action: string }) => e.action);
    expect(actions.sort()).toEqual(['saved_group.created', 'saved_group.updated']);
    // the entry names the version the change minted and the fields it changed
    const updated = (audit.data ?? audit).find(
      (e: { action: string }) => e.action === 'saved_group.updated',
    );
    expect(updated.details).toEqual({ key: 'admins', version: 2, changed: ['values'] });
  });

  it('are not another org’s to read or change', async () => {
    const other = await h.org('saved-groups-other');
    const read = await h.call(other.admin, { method: 'GET', url: '/v1/saved-groups/admins' });
    expect(read.statusCode).toBe(404);
    expect(read.json().type).toBe('/problems/saved-group-not-found');
    const listed = await h.call(other.admin, { method: 'GET', url: '/v1/saved-groups' });
    expect(listed.json()).toEqual([]);
  });
});

describe('targeting on a saved group', () => {
  it('refuses a condition naming a group the org does not have, pointing at it', async () => {
    const res = await call(
      'POST',
      '/v1/experiments',
      experimentConfig({
        name: 'unknown-group',
        targeting: { $or: [{ id: { $inGroup: 'beta-testers' } }, { id: { $notInGroup: 'nope' } }] },
      }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { pointer: '#/targeting/$or/1/id/$notInGroup', detail: 'no saved group has the key "nope"' },
    ]);
  });

  it('admits the group’s members, and follows a change of its values at once', async () => {
    const created = await call(
      'POST',
      '/v1/experiments',
      experimentConfig({
        name: 'beta-only',
        targeting: { id: { $inGroup: 'beta-testers' } },
        allocation: [{ variant: 'on', weight: 100 }],
      }),
    );
    expect(created.statusCode).toBe(201);
    expect(await assign('beta-only', 'u', { id: 'ann' })).toMatchObject({ variant: 'on' });
    expect(await assign('beta-only', 'u', { id: 42 })).toMatchObject({ variant: 'on' });
    expect(await assign('beta-only', 'u', { id: 'cy' })).toMatchObject({
      variant: null,
      reason: 'not_targeted',
    });
    const put = await call('PUT', '/v1/saved-groups/beta-testers', { values: ['cy'] });
    expect(put.statusCode).toBe(200);
    expect(await assign('beta-only', 'u', { id: 'cy' })).toMatchObject({ variant: 'on' });
    expect(await assign('beta-only', 'u', { id: 'ann' })).toMatchObject({ variant: null });
  });
});

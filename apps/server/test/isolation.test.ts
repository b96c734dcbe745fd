import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';

let h: Harness;
let a: string;
let b: string;
let experimentId: string;

beforeAll(async () => {
  h = await startHarness();
  a = await h.token({ sub: 'alice', org_id: 'org_a', org_role: 'admin' });
  b = await h.token({ sub: 'bert', org_id: 'org_b', org_role: 'owner' });
  const created = await h.call(a, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name: 'secret-plan' }),
  });
  experimentId = created.json().id;
  await h.call(a, {
    method: 'PUT',
    url: `/v1/experiments/${experimentId}`,
    payload: { description: 'v2' },
  });
  await h.call(a, { method: 'POST', url: '/v1/keys', payload: { scope: 'secret' } });
  await h.call(a, { method: 'POST', url: '/v1/feedback', payload: { message: 'from org a' } });
});
afterAll(() => h.close());

describe("org B cannot reach anything of org A's", () => {
  it.each([
    ['read', 'GET', ''],
    ['version-list', 'GET', '/versions'],
    ['version', 'GET', '/versions/1'],
  ])('cannot %s the experiment: 404', async (_what, method, suffix) => {
    const res = await h.call(b, {
      method: method as 'GET',
      url: `/v1/experiments/${experimentId}${suffix}`,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('/problems/experiment-not-found');
  });

  it('cannot update it: 404, and org A sees no new version', async () => {
    const res = await h.call(b, {
      method: 'PUT',
      url: `/v1/experiments/${experimentId}`,
      payload: { description: 'hijack' },
    });
    expect(res.statusCode).toBe(404);
    const mine = await h.call(a, { method: 'GET', url: `/v1/experiments/${experimentId}` });
    expect(mine.json()).toMatchObject({ version: 2, description: 'v2' });
  });

  it('does not list it', async () => {
    expect((await h.call(b, { method: 'GET', url: '/v1/experiments' })).json()).toEqual([]);
    expect((await h.call(a, { method: 'GET', url: '/v1/experiments' })).json()).toHaveLength(1);
  });

  it('finds none of its audit entries, filtered or not', async () => {
    expect(
      (await h.call(b, { method: 'GET', url: `/v1/audit?target_id=${experimentId}` })).json(),
    ).toEqual([]);
    expect((await h.call(b, { method: 'GET', url: '/v1/audit' })).json()).toEqual([]);
    expect(
      (await h.call(a, { method: 'GET', url: `/v1/audit?target_id=${experimentId}` })).json(),
    ).toHaveLength(2);
  });

  it('sees none of its keys or feedback, and may reuse its experiment name', async () => {
    expect((await h.call(b, { method: 'GET', url: '/v1/keys' })).json()).toEqual([]);
    expect((await h.call(b, { method: 'GET', url: '/v1/keys/secret/reveal' })).statusCode).toBe(
      404,
    );
    expect((await h.call(b, { method: 'GET', url: '/v1/feedback' })).json()).toEqual([]);
    const same = await h.call(b, {
      method: 'POST',
      url: '/v1/experiments',
      payload: experimentConfig({ name: 'secret-plan' }),
    });
    expect(same.statusCode).toBe(201);
  });
});

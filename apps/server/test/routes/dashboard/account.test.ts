import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/whoami', () => {
  it('returns internal ids, stable across calls, and the role of the token', async () => {
    const t = await h.token({
      sub: 'ext_user_1',
      email: 'Grace@Acme.test',
      name: 'Grace',
      org_id: 'ext_org_1',
      org_role: 'owner',
    });
    const first = (await h.call(t, { method: 'GET', url: '/v1/whoami' })).json();
    expect(first).toMatchObject({ role: 'owner', email: 'grace@acme.test', name: 'Grace' });
    expect(first.org_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.org_id).not.toBe('ext_org_1');
    const again = await h.token({
      sub: 'ext_user_1',
      email: 'grace@acme.test',
      name: 'Grace H.',
      org_id: 'ext_org_1',
      org_role: 'member',
    });
    const second = (await h.call(again, { method: 'GET', url: '/v1/whoami' })).json();
    expect(second).toMatchObject({
      org_id: first.org_id,
      user_id: first.user_id,
      role: 'member',
      name: 'Grace H.',
    });
  });
});

describe('feedback', () => {
  it('stores feedback and lists the org’s own, newest first', async () => {
    const t = await h.token({ sub: 'f', org_id: 'fb', org_role: 'member' });
    const one = await h.call(t, {
      method: 'POST',
      url: '/v1/feedback',
      payload: { message: 'first', category: 'idea' },
    });
    expect(one.statusCode).toBe(201);
    expect(one.json()).toMatchObject({ message: 'first', category: 'idea', page: null });
    await h.call(t, {
      method: 'POST',
      url: '/v1/feedback',
      payload: { message: 'second', page: '/experiments' },
    });
    const list = (await h.call(t, { method: 'GET', url: '/v1/feedback' })).json();
    expect(list.map((f: { message: string }) => f.message)).toEqual(['second', 'first']);
    expect(list[0].category).toBe('other');
  });

  it.each([
    [{}, '#/message', 'is required'],
    [{ message: '   ' }, '#/message', 'must match pattern "\\S"'],
    [
      { message: 'x', category: 'rant' },
      '#/category',
      'must be equal to one of the allowed values',
    ],
    [{ message: 'x', extra: 1 }, '#/extra', 'is not a known field'],
  ])('rejects %j with a 400 problem', async (payload, pointer, detail) => {
    const t = await h.token({ sub: 'f', org_id: 'fb2', org_role: 'member' });
    const res = await h.call(t, { method: 'POST', url: '/v1/feedback', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual({ pointer, detail });
    expect((await h.call(t, { method: 'GET', url: '/v1/feedback' })).json()).toEqual([]);
  });
});

describe('GET /v1/audit', () => {
  it('rejects an unknown query parameter and a bad limit', async () => {
    const t = await h.token({ sub: 'a', org_id: 'au', org_role: 'member' });
    const res = await h.call(t, { method: 'GET', url: '/v1/audit?limit=0' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ parameter: 'limit', detail: 'must be >= 1' }]);
    const unknown = await h.call(t, { method: 'GET', url: '/v1/audit?target=x' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([
      { parameter: 'target', detail: 'is not a known field' },
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: 'boss@arbiter.test' });
});
afterAll(() => h.close());

const run = (headers: Record<string, string>) =>
  h.app.inject({
    method: 'POST',
    url: '/v1/admin/pipeline/run',
    headers,
    payload: { day: '2026-11-20' },
  });

describe('POST /v1/admin/pipeline/run (platform owners only)', () => {
  it('runs the day for a platform owner’s session', async () => {
    const token = await h.idp.sign({ sub: 'boss', email: 'Boss@Arbiter.test', org_id: 'any' });
    const res = await run({ authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      day: '2026-11-20',
      ran: true,
      experiments: [],
      skipped: [],
      purged_events: 0,
    });
  });

  it('runs the day for the local control token', async () => {
    expect((await run({ 'x-arbiter-control': h.ctx.controlToken })).statusCode).toBe(200);
  });

  it('answers 401 without a credential, 401 for a wrong control token, 403 for an org admin who is not an owner', async () => {
    const none = await run({});
    expect(none.statusCode).toBe(401);
    expect(none.json().type).toBe('/problems/missing-credential');
    const wrong = await run({ 'x-arbiter-control': 'guess' });
    expect(wrong.statusCode).toBe(401);
    const admin = await h.idp.sign({
      sub: 'adm',
      email: 'admin@customer.test',
      org_id: 'customer',
      org_role: 'owner',
    });
    const forbidden = await run({ authorization: `Bearer ${admin}` });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().detail).toBe('Only platform owners may use this route');
  });

  it('rejects a malformed day', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/admin/pipeline/run',
      headers: { 'x-arbiter-control': h.ctx.controlToken },
      payload: { day: '20-11-2026' },
    });
    expect(res.statusCode).toBe(400);
  });
});

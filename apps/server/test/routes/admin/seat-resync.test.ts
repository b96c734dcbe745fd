import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setPlanOverride } from '../../../src/domain/plans/plan-override.ts';
import type { Plan } from '../../../src/domain/plans/plans.ts';
import { type FakeClerkApi, startFakeClerkApi } from '../../support/clerk-api.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

const OWNER = 'owner@arbiter.test';
let h: Harness;
let clerk: FakeClerkApi;
let owner: string;

/** An org seen through a session, on `plan` (pinned by a platform override; free: none). */
async function orgOnPlan(externalId: string, plan: Plan): Promise<string> {
  const t = await h.token({
    sub: `admin_${externalId}`,
    org_id: externalId,
    org_role: 'org:admin',
  });
  const orgId = (await h.call(t, { method: 'GET', url: '/v1/whoami' })).json().org_id as string;
  const pin = plan === 'free' ? null : plan;
  await setPlanOverride(h.ctx.db, orgId, pin, { userId: null }, new Date());
  return orgId;
}

function resync() {
  return h.call(owner, { method: 'POST', url: '/v1/admin/seats/resync' });
}

const patches = () => clerk.requests.filter((r) => r.method === 'PATCH');

beforeAll(async () => {
  clerk = await startFakeClerkApi();
  h = await startHarness({
    ARBITER_CLERK_SECRET_KEY: 'sk_test_arbiter',
    ARBITER_CLERK_API_URL: clerk.url,
    ARBITER_PLATFORM_OWNER_EMAILS: OWNER,
  });
  owner = await h.token({ sub: 'user_owner', email: OWNER, org_id: 'org_house' });
});
afterAll(async () => {
  await h.close();
  await clerk.close();
});
beforeEach(() => {
  clerk.requests.length = 0;
});

describe('POST /v1/admin/seats/resync', () => {
  it("pushes each org's plan cap through the Backend API, then changes nothing", async () => {
    const free = await orgOnPlan('org_free', 'free');
    const pro = await orgOnPlan('org_pro', 'pro');
    const business = await orgOnPlan('org_business', 'business');
    clerk.orgs.set('org_free', 5);
    clerk.orgs.set('org_pro', 5);
    clerk.orgs.set('org_business', 5);
    clerk.orgs.set('org_stranger', 50); // never seen by Arbiter: on free
    // More than one page (the adapter asks for 100 at a time), all already right.
    for (let i = 0; i < 120; i++) clerk.orgs.set(`org_page_${String(i).padStart(3, '0')}`, 5);

    const first = await resync();
    expect(first.statusCode).toBe(200);
    expect(first.json().unchanged).toBe(121);
    expect(first.json().changed).toEqual(
      expect.arrayContaining([
        { org_id: pro, external_id: 'org_pro', plan: 'pro', from: 5, to: 100 },
        { org_id: business, external_id: 'org_business', plan: 'business', from: 5, to: null },
        { org_id: null, external_id: 'org_stranger', plan: 'free', from: 50, to: 5 },
      ]),
    );
    expect(first.json().changed).toHaveLength(3);
    expect(first.json().changed.map((c: { org_id: string }) => c.org_id)).not.toContain(free);

    // The SDK's requests, as the real API receives them (it leaves out a zero offset).
    const lists = clerk.requests.filter((r) => r.method === 'GET');
    expect(lists.map((r) => [r.path, r.query])).toEqual([
      ['/v1/organizations', { limit: '100' }],
      ['/v1/organizations', { limit: '100', offset: '100' }],
    ]);
    expect(lists[0]?.headers.authorization).toBe('Bearer sk_test_arbiter');
    expect(
      patches()
        .map((r) => [r.path, r.body])
        .sort(),
    ).toEqual([
      ['/v1/organizations/org_business', { max_allowed_memberships: 0 }],
      ['/v1/organizations/org_pro', { max_allowed_memberships: 100 }],
      ['/v1/organizations/org_stranger', { max_allowed_memberships: 5 }],
    ]);
    expect(clerk.orgs.get('org_business')).toBe(0);

    clerk.requests.length = 0;
    const second = await resync();
    expect(second.json()).toEqual({ changed: [], unchanged: 124 });
    expect(patches()).toEqual([]);
  });

  it('follows a plan change on the next run', async () => {
    await orgOnPlan('org_pro', 'free');
    const res = await resync();
    expect(res.json().changed).toEqual([
      expect.objectContaining({ external_id: 'org_pro', plan: 'free', from: 100, to: 5 }),
    ]);
    expect(clerk.orgs.get('org_pro')).toBe(5);
  });

  it('answers 502 with what it changed when the provider refuses an update', async () => {
    await orgOnPlan('org_upgrade', 'pro');
    await orgOnPlan('org_refused', 'pro');
    clerk.orgs.set('org_upgrade', 5);
    clerk.orgs.set('org_refused', 5);
    clerk.refuse.add('org_refused');
    const res = await resync();
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      type: '/problems/identity-provider-failed',
      detail:
        'Seat resync stopped after 0 change(s): updating org_refused: the identity provider answered 422 (form_param_value_invalid: max_allowed_memberships cannot be below the current member count)',
      changed: [],
    });
    clerk.refuse.clear();
    // Run again: what failed is done now, what was done is not redone.
    const again = await resync();
    expect(
      again
        .json()
        .changed.map((c: { external_id: string }) => c.external_id)
        .sort(),
    ).toEqual(['org_refused', 'org_upgrade']);
  });

  it('answers 409 without ARBITER_CLERK_SECRET_KEY, calling nobody', async () => {
    const bare = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: OWNER });
    try {
      const token = await bare.token({ sub: 'user_owner', email: OWNER, org_id: 'org_house' });
      const res = await bare.call(token, { method: 'POST', url: '/v1/admin/seats/resync' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        type: '/problems/identity-provider-not-configured',
        detail:
          'Set ARBITER_CLERK_SECRET_KEY (and ARBITER_CLERK_API_URL) to push seat caps to the identity provider',
      });
      expect(clerk.requests).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

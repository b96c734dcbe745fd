import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../../src/db/schema.ts';
import { applyPeriodEnds } from '../../../src/domain/plans/plan-changes.ts';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';
import { judgeMetric } from '../../support/judge-fixtures.ts';
import {
  billingSettings,
  deliverBillingEvent,
  PRICE_BUSINESS,
  PRICE_PRO,
  stripeEvent,
  subscriptionObject,
} from '../../support/stripe-events.ts';

/**
 * The plan precedence matrix through the real routes: platform override × subscription state
 * × cancellation at period end, each cell on its own org, and the audit trail of a whole
 * life cycle. No call reaches Stripe's API here (webhooks only), so the API base is unused.
 */
const OWNER = 'owner@arbiter.test';
let h: Harness;
let now = new Date('2026-11-22T12:00:00Z');
const DAY = 86_400_000;
const at = (days: number) => new Date(now.getTime() + days * DAY);

beforeAll(async () => {
  h = await startHarness(
    { ...billingSettings('http://127.0.0.1:9'), ARBITER_PLATFORM_OWNER_EMAILS: OWNER },
    { clock: { now: () => now } },
  );
});
afterAll(() => h.close());

const ownerToken = () =>
  h.idp.sign({ sub: 'platform-owner', email: OWNER, org_id: 'ops', org_role: 'owner' });

async function deliver(event: object) {
  expect((await deliverBillingEvent(h, event)).statusCode).toBe(204);
}

async function override(orgId: string, plan: string | null, token?: string) {
  return h.call(token ?? (await ownerToken()), {
    method: 'PUT',
    url: `/v1/admin/orgs/${orgId}/plan-override`,
    payload: { plan },
  });
}

const summary = async (token: string) =>
  (await h.call(token, { method: 'GET', url: '/v1/billing/summary' })).json();

interface Cell {
  override: 'business' | 'free' | null;
  subscription: 'none' | 'active' | 'trialing' | 'past_due' | 'deleted' | 'incomplete';
  cancelAtPeriodEnd: boolean;
  /** Expected plan and source while the paid period lasts, then after it ended. */
  during: [string, string];
  after: [string, string];
}

const SUBSCRIPTION_CELLS: Array<Omit<Cell, 'override'>> = [
  {
    subscription: 'none',
    cancelAtPeriodEnd: false,
    during: ['free', 'free'],
    after: ['free', 'free'],
  },
  {
    subscription: 'active',
    cancelAtPeriodEnd: false,
    during: ['pro', 'billing'],
    after: ['pro', 'billing'],
  },
  {
    subscription: 'active',
    cancelAtPeriodEnd: true,
    during: ['pro', 'billing'],
    after: ['free', 'free'],
  },
  {
    subscription: 'trialing',
    cancelAtPeriodEnd: false,
    during: ['pro', 'billing'],
    after: ['pro', 'billing'],
  },
  {
    subscription: 'trialing',
    cancelAtPeriodEnd: true,
    during: ['pro', 'billing'],
    after: ['free', 'free'],
  },
  {
    subscription: 'past_due',
    cancelAtPeriodEnd: false,
    during: ['pro', 'billing'],
    after: ['free', 'free'],
  },
  {
    subscription: 'deleted',
    cancelAtPeriodEnd: false,
    during: ['pro', 'billing'],
    after: ['free', 'free'],
  },
  {
    subscription: 'incomplete',
    cancelAtPeriodEnd: false,
    during: ['free', 'free'],
    after: ['free', 'free'],
  },
];

const MATRIX: Cell[] = (['business', 'free', null] as const).flatMap((pinned) =>
  SUBSCRIPTION_CELLS.map((cell) =>
    pinned === null
      ? { ...cell, override: null }
      : { ...cell, override: pinned, during: [pinned, 'override'], after: [pinned, 'override'] },
  ),
);

describe('plan precedence: override, else subscription, else free', () => {
  const start = now;
  it.each(MATRIX)(
    'override $override × $subscription (cancel at period end: $cancelAtPeriodEnd)',
    async (cell) => {
      now = start;
      const tag = `${cell.override}-${cell.subscription}-${cell.cancelAtPeriodEnd}`;
      const org = await h.org(`matrix-${tag}`);
      if (cell.subscription !== 'none') {
        const deleted = cell.subscription === 'deleted';
        const sub = subscriptionObject({
          id: `sub_${tag}`,
          customer: `cus_${tag}`,
          price: PRICE_PRO,
          status: deleted ? 'canceled' : cell.subscription,
          cancelAtPeriodEnd: cell.cancelAtPeriodEnd,
          periodEnd: at(10),
          orgId: org.orgId,
        });
        await deliver(
          stripeEvent(`customer.subscription.${deleted ? 'deleted' : 'updated'}`, sub, now),
        );
      }
      if (cell.override !== null)
        expect((await override(org.orgId, cell.override)).statusCode).toBe(200);
      const during = await summary(org.admin);
      expect([during.plan, during.plan_source]).toEqual(cell.during);
      now = at(11);
      const after = await summary(org.admin);
      expect([after.plan, after.plan_source]).toEqual(cell.after);
      const usage = (await h.call(org.admin, { method: 'GET', url: '/v1/usage' })).json();
      expect(usage.plan).toBe(cell.after[0]);
      now = start;
    },
  );
});

const trail = (orgId: string) =>
  h.ctx.db
    .select({ action: auditLog.action, details: auditLog.details })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), like(auditLog.action, 'plan.%')))
    .orderBy(auditLog.seq);

describe('a plan life cycle and its audit trail', () => {
  it('records every change with its source, never lets a webhook revoke an override, and keeps every experiment', async () => {
    const org = await h.org('life-cycle');
    const sub = (status: string, price: string, periodEnd: Date) =>
      subscriptionObject({
        id: 'sub_life',
        customer: 'cus_life',
        price,
        status,
        periodEnd,
        orgId: org.orgId,
      });
    await deliver(
      stripeEvent('customer.subscription.created', sub('active', PRICE_PRO, at(30)), now),
    );
    const judged = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/experiments',
      payload: experimentConfig({ name: 'judged', metrics: [judgeMetric()] }),
    });
    expect(judged.statusCode).toBe(201);
    const plain = await h.experiment(org.admin);

    expect((await override(org.orgId, 'enterprise')).json()).toEqual({
      org_id: org.orgId,
      plan: 'enterprise',
      plan_source: 'override',
      override: 'enterprise',
    });
    // A webhook that would move the plan changes the subscription, not the pinned plan.
    await deliver(
      stripeEvent(
        'customer.subscription.updated',
        sub('active', PRICE_BUSINESS, at(30)),
        at(0.001),
      ),
    );
    await deliver(
      stripeEvent(
        'customer.subscription.deleted',
        sub('canceled', PRICE_BUSINESS, at(30)),
        at(0.002),
      ),
    );
    expect(await summary(org.admin)).toMatchObject({
      plan: 'enterprise',
      override: 'enterprise',
      subscription_status: 'canceled',
    });

    // Cleared: back to billing, whose cancelled subscription still covers its paid period.
    expect((await override(org.orgId, null)).json()).toMatchObject({
      plan: 'business',
      plan_source: 'billing',
    });

    now = at(31);
    // The hourly pass records the end of the paid period (of the matrix's orgs too), once.
    expect(await applyPeriodEnds(h.ctx.db, now)).toContain(org.orgId);
    expect(await applyPeriodEnds(h.ctx.db, now)).toEqual([]);

    expect(await trail(org.orgId)).toEqual([
      {
        action: 'plan.changed',
        details: { from: 'free', to: 'pro', source: 'billing', plan_source: 'billing' },
      },
      { action: 'plan.override_changed', details: { plan: 'enterprise', by: OWNER } },
      {
        action: 'plan.changed',
        details: {
          from: 'pro',
          to: 'enterprise',
          source: 'override',
          plan_source: 'override',
          by: OWNER,
        },
      },
      { action: 'plan.override_changed', details: { plan: null, by: OWNER } },
      {
        action: 'plan.changed',
        details: {
          from: 'enterprise',
          to: 'business',
          source: 'override',
          plan_source: 'billing',
          by: OWNER,
        },
      },
      {
        action: 'plan.changed',
        details: { from: 'business', to: 'free', source: 'period_end', plan_source: 'free' },
      },
    ]);
    // The dashboard's audit route shows the plan changes too.
    const audit = (await h.call(org.admin, { method: 'GET', url: '/v1/audit' })).json();
    expect(audit.filter((e: { action: string }) => e.action === 'plan.changed')).toHaveLength(4);

    // Downgraded to free: both experiments, the judge one included, are still there.
    const listed = (await h.call(org.admin, { method: 'GET', url: '/v1/experiments' })).json();
    expect(listed.map((e: { id: string }) => e.id).sort()).toEqual(
      [judged.json().id, plain].sort(),
    );
    const judgedNow = await h.call(org.admin, {
      method: 'GET',
      url: `/v1/experiments/${judged.json().id}`,
    });
    expect(judgedNow.statusCode).toBe(200);
    // Only limits changed: a new judge metric needs pro again.
    const refused = await h.call(org.admin, {
      method: 'PUT',
      url: `/v1/experiments/${plain}`,
      payload: { metrics: [judgeMetric()] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().type).toBe('/problems/plan-required');
  });
});

describe('PUT /v1/admin/orgs/{id}/plan-override', () => {
  it('answers 401 without a credential, with a bad token and with an API key instead of a session', async () => {
    const org = await h.org('override-auth');
    const none = await h.call(null, {
      method: 'PUT',
      url: `/v1/admin/orgs/${org.orgId}/plan-override`,
      payload: { plan: 'pro' },
    });
    expect(none.statusCode).toBe(401);
    const bad = await override(org.orgId, 'pro', 'not.a.jwt');
    expect(bad.statusCode).toBe(401);
    const key = await h.app.inject({
      method: 'PUT',
      url: `/v1/admin/orgs/${org.orgId}/plan-override`,
      headers: { 'x-api-key': org.secret },
      payload: { plan: 'pro' },
    });
    expect(key.statusCode).toBe(401);
    expect((await summary(org.admin)).plan).toBe('free');
  });

  it("answers 403 to an org's own owner who is not a platform owner, changing nothing", async () => {
    const org = await h.org('override-forbidden');
    const orgOwner = await h.idp.sign({
      sub: 'org-owner',
      email: 'someone@customer.test',
      org_id: 'override-forbidden',
      org_role: 'owner',
    });
    const res = await override(org.orgId, 'enterprise', orgOwner);
    expect(res.statusCode).toBe(403);
    expect(res.json().type).toBe('/problems/insufficient-role');
    expect((await summary(org.admin)).plan).toBe('free');
    expect(await trail(org.orgId)).toEqual([]);
  });

  it('answers 404 for an unknown org and 400 for a plan that does not exist', async () => {
    const unknown = await override('00000000-0000-4000-8000-000000000000', 'pro');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().type).toBe('/problems/org-not-found');
    const org = await h.org('override-bad-plan');
    const bad = await override(org.orgId, 'platinum');
    expect(bad.statusCode).toBe(400);
    expect((await summary(org.admin)).plan).toBe('free');
  });

  it("pins one org's plan only", async () => {
    const pinned = await h.org('override-pinned');
    const other = await h.org('override-other');
    expect((await override(pinned.orgId, 'business')).statusCode).toBe(200);
    expect((await summary(pinned.admin)).plan).toBe('business');
    expect((await summary(other.admin)).plan).toBe('free');
  });
});

describe('a billing provider that does not answer', () => {
  it('answers 502 for a checkout and stores no billing account', async () => {
    // This file's API base is a closed loopback port.
    const org = await h.org('stripe-down');
    const res = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/billing/checkout-session',
      payload: { plan: 'pro' },
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().type).toBe('/problems/billing-provider-failed');
    expect((await summary(org.admin)).has_billing_account).toBe(false);
  });
});

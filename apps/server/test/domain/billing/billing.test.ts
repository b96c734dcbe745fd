import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, billingAccounts, billingSubscriptions } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import {
  billingSettings,
  type DeliveryOptions,
  deliverBillingEvent,
  PRICE_BUSINESS,
  PRICE_PRO,
  stripeEvent,
  subscriptionObject,
} from '../../support/stripe-events.ts';
import { type StripeMock, startStripeMock } from '../../support/stripe-mock.ts';

/**
 * Billing against Stripe's own stripe-mock, driven by the stripe SDK; webhook deliveries
 * signed with the stripe library's test-header helper. The clock is the test's, so that a
 * paid period can end.
 */
let stripe: StripeMock;
let h: Harness;
let now = new Date('2026-11-22T12:00:00Z');
const DAY = 86_400_000;
const later = (days: number) => new Date(now.getTime() + days * DAY);

beforeAll(async () => {
  stripe = await startStripeMock();
  h = await startHarness(billingSettings(stripe.origin), { clock: { now: () => now } });
}, 600_000);
afterAll(async () => {
  await h?.close();
  await stripe?.close();
});

const summary = async (token: string) =>
  (await h.call(token, { method: 'GET', url: '/v1/billing/summary' })).json();

const deliver = (event: object, options: DeliveryOptions = {}) =>
  deliverBillingEvent(h, event, options);

const accountOf = async (orgId: string) =>
  await h.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId));

const planChanges = (orgId: string) =>
  h.ctx.db
    .select({ details: auditLog.details })
    .from(auditLog)
    .where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, 'plan.changed')))
    .orderBy(auditLog.seq);

describe('checkout and portal through the stripe SDK', () => {
  let org: Awaited<ReturnType<Harness['org']>>;
  beforeAll(async () => {
    org = await h.org('checkout-co');
  });

  it('reports a free org with billing configured and no account yet', async () => {
    expect(await summary(org.admin)).toEqual({
      plan: 'free',
      plan_source: 'free',
      override: null,
      has_billing_account: false,
      billing_configured: true,
      subscription_status: null,
      current_period_end: null,
      cancel_at_period_end: false,
    });
  });

  it('answers 409 for the portal before any checkout', async () => {
    const res = await h.call(org.admin, { method: 'POST', url: '/v1/billing/portal-session' });
    expect(res.statusCode).toBe(409);
    expect(res.json().type).toBe('/problems/no-billing-account');
  });

  it('creates the customer once, and puts the org id on the session and the subscription', async () => {
    const before = stripe.requests.length;
    const first = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/billing/checkout-session',
      payload: { plan: 'pro', return_url: 'https://app.example.com/usage?tab=plan#billing' },
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().url).toMatch(/^https:\/\//);
    const second = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/billing/checkout-session',
      payload: { plan: 'business' },
    });
    expect(second.statusCode).toBe(200);

    const sent = stripe.requests.slice(before);
    const customers = sent.filter((r) => r.method === 'POST' && r.path === '/v1/customers');
    expect(customers).toHaveLength(1);
    expect(customers[0]?.params['metadata[arbiter_org_id]']).toBe(org.orgId);
    expect(customers[0]?.headers['idempotency-key']).toBe(`arbiter-customer-${org.orgId}`);
    const accounts = await accountOf(org.orgId);
    expect(accounts).toHaveLength(1);
    const customerId = accounts[0]?.customerId;
    expect(customerId).toMatch(/^cus_/);

    const sessions = sent.filter((r) => r.path === '/v1/checkout/sessions');
    expect(sessions.map((s) => s.params['line_items[0][price]'])).toEqual([
      PRICE_PRO,
      PRICE_BUSINESS,
    ]);
    for (const s of sessions) {
      expect(s.params).toMatchObject({
        mode: 'subscription',
        customer: customerId,
        client_reference_id: org.orgId,
        'metadata[arbiter_org_id]': org.orgId,
        'subscription_data[metadata][arbiter_org_id]': org.orgId,
      });
    }
    expect(sessions[0]?.params.success_url).toBe(
      'https://app.example.com/usage?tab=plan&checkout=success#billing',
    );
    expect(sessions[0]?.params.cancel_url).toBe(
      'https://app.example.com/usage?tab=plan&checkout=cancelled#billing',
    );
    // Without return_url: this server's usage page, on the host the request came to.
    expect(sessions[1]?.params.success_url).toBe('http://localhost:80/usage?checkout=success');
    expect((await summary(org.admin)).has_billing_account).toBe(true);
  });

  it('refuses a return URL that is not printable ASCII over http(s) with 400, before anything reaches Stripe', async () => {
    const before = stripe.requests.length;
    for (const url of ['/v1/billing/checkout-session', '/v1/billing/portal-session']) {
      for (const return_url of ['https://\u00ca.example', 'https://a b', 'javascript:alert(1)']) {
        const res = await h.call(org.admin, {
          method: 'POST',
          url,
          payload: { ...(url.includes('checkout') ? { plan: 'business' } : {}), return_url },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          type: '/problems/validation-error',
          errors: expect.arrayContaining([expect.objectContaining({ pointer: '#/return_url' })]),
        });
      }
    }
    expect(stripe.requests.length).toBe(before);
  });

  it('opens the portal for the stored customer', async () => {
    const before = stripe.requests.length;
    const res = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/billing/portal-session',
      payload: { return_url: 'https://app.example.com/usage' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().url).toMatch(/^https:\/\//);
    const [portal] = stripe.requests.slice(before);
    expect(portal?.path).toBe('/v1/billing_portal/sessions');
    const [account] = await accountOf(org.orgId);
    expect(portal?.params.customer).toBe(account?.customerId);
  });

  it('answers 409 for a checkout of the plan already active, and sends nothing to Stripe', async () => {
    const [account] = await accountOf(org.orgId);
    const sub = subscriptionObject({
      id: 'sub_checkout_co',
      customer: account?.customerId as string,
      price: PRICE_PRO,
      status: 'active',
      periodEnd: later(30),
      orgId: org.orgId,
    });
    expect((await deliver(stripeEvent('customer.subscription.created', sub, now))).statusCode).toBe(
      204,
    );
    const before = stripe.requests.length;
    const res = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/billing/checkout-session',
      payload: { plan: 'pro' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      type: '/problems/plan-already-active',
      plan: 'pro',
      plan_source: 'billing',
    });
    expect(stripe.requests.length).toBe(before);
  });

  it("keeps each org to its own account: another org's admin has none", async () => {
    const other = await h.org('checkout-other');
    expect((await summary(other.admin)).has_billing_account).toBe(false);
    const res = await h.call(other.admin, { method: 'POST', url: '/v1/billing/portal-session' });
    expect(res.statusCode).toBe(409);
  });
});

describe('POST /v1/webhooks/stripe', () => {
  let org: Awaited<ReturnType<Harness['org']>>;
  const customer = 'cus_webhook_co';
  const sub = (
    status: string,
    price = PRICE_PRO,
    extra: Partial<Parameters<typeof subscriptionObject>[0]> = {},
  ) =>
    subscriptionObject({
      id: 'sub_webhook_co',
      customer,
      price,
      status,
      periodEnd: later(30),
      orgId: org.orgId,
      ...extra,
    });
  beforeAll(async () => {
    org = await h.org('webhook-co');
  });

  it('applies a valid delivery: the org is on pro from billing, and the change is audited', async () => {
    const res = await deliver(stripeEvent('customer.subscription.created', sub('active'), now));
    expect(res.statusCode).toBe(204);
    expect(await summary(org.admin)).toMatchObject({
      plan: 'pro',
      plan_source: 'billing',
      has_billing_account: true,
      subscription_status: 'active',
      current_period_end: later(30).toISOString(),
    });
    expect((await planChanges(org.orgId)).map((r) => r.details)).toEqual([
      { from: 'free', to: 'pro', source: 'billing', plan_source: 'billing' },
    ]);
    const usage = (await h.call(org.admin, { method: 'GET', url: '/v1/usage' })).json();
    expect(usage).toMatchObject({
      plan: 'pro',
      events: { used: 0, included: 1_000_000 },
      judge_evaluations: { used: 0, included: 50_000 },
      overage_billed: true,
      resets_at: '2026-12-01T00:00:00.000Z',
    });
  });

  it('accepts Stripe-Signature as well as Billing-Signature', async () => {
    const res = await deliver(stripeEvent('customer.subscription.updated', sub('active'), now), {
      header: 'stripe-signature',
    });
    expect(res.statusCode).toBe(204);
  });

  it('refuses a bad, stale, tampered or missing signature (a session token is none) with 401, changing nothing', async () => {
    const upgrade = stripeEvent(
      'customer.subscription.updated',
      sub('active', PRICE_BUSINESS),
      now,
    );
    const bad = await deliver(upgrade, { secret: 'whsec_someone_else' });
    const stale = await deliver(upgrade, { at: new Date(now.getTime() - 10 * 60_000) });
    const tampered = await deliver(upgrade, { sign: 't=1,v1=00' });
    const missing = await h.app.inject({
      method: 'POST',
      url: '/v1/webhooks/stripe',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(upgrade),
    });
    const session = await h.app.inject({
      method: 'POST',
      url: '/v1/webhooks/stripe',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${org.admin}` },
      payload: JSON.stringify(upgrade),
    });
    for (const res of [bad, stale, tampered, missing, session]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().type).toBe('/problems/invalid-signature');
    }
    expect(stale.json().detail).toMatch(/tolerance/i);
    expect((await summary(org.admin)).plan).toBe('pro');
  });

  it('applies a replayed delivery once', async () => {
    const upgrade = stripeEvent(
      'customer.subscription.updated',
      sub('active', PRICE_BUSINESS),
      new Date(now.getTime() + 1000),
    );
    expect((await deliver(upgrade)).statusCode).toBe(204);
    const changes = (await planChanges(org.orgId)).length;
    const replay = await deliver(upgrade, { at: new Date(now.getTime() + 5000) });
    expect(replay.statusCode).toBe(204);
    expect((await planChanges(org.orgId)).length).toBe(changes);
    expect((await summary(org.admin)).plan).toBe('business');
  });

  it('keeps the newest state when an older event arrives after a newer one', async () => {
    const newer = stripeEvent(
      'customer.subscription.updated',
      sub('active', PRICE_PRO, { cancelAtPeriodEnd: true }),
      new Date(now.getTime() + 20_000),
    );
    const older = stripeEvent(
      'customer.subscription.updated',
      sub('active', PRICE_BUSINESS),
      new Date(now.getTime() + 10_000),
    );
    expect((await deliver(newer)).statusCode).toBe(204);
    expect((await deliver(older)).statusCode).toBe(204);
    const [row] = await h.ctx.db
      .select()
      .from(billingSubscriptions)
      .where(eq(billingSubscriptions.subscriptionId, 'sub_webhook_co'));
    expect(row).toMatchObject({ plan: 'pro', cancelAtPeriodEnd: true, lastEventId: newer.id });
    expect(await summary(org.admin)).toMatchObject({ plan: 'pro', cancel_at_period_end: true });
  });

  it('acknowledges other event types with 204 and ignores them', async () => {
    const res = await deliver(stripeEvent('invoice.paid', { id: 'in_1', object: 'invoice' }, now));
    expect(res.statusCode).toBe(204);
    expect((await summary(org.admin)).plan).toBe('pro');
  });

  it('finds the org by the stored customer id when the metadata has no org id', async () => {
    const deleted = stripeEvent(
      'customer.subscription.deleted',
      sub('canceled', PRICE_PRO, { orgId: undefined, periodEnd: new Date(now.getTime() - 1000) }),
      new Date(now.getTime() + 30_000),
    );
    expect((await deliver(deleted)).statusCode).toBe(204);
    expect(await summary(org.admin)).toMatchObject({
      plan: 'free',
      plan_source: 'free',
      subscription_status: 'canceled',
    });
    expect((await planChanges(org.orgId)).at(-1)?.details).toMatchObject({
      from: 'pro',
      to: 'free',
      source: 'billing',
    });
  });

  it('links the customer of a completed checkout and reads its subscription from Stripe', async () => {
    const fresh = await h.org('checkout-completed-co');
    const before = stripe.requests.length;
    const session = {
      id: 'cs_test_1',
      object: 'checkout.session',
      mode: 'subscription',
      customer: 'cus_completed_co',
      subscription: 'sub_completed_co',
      client_reference_id: fresh.orgId,
      metadata: { arbiter_org_id: fresh.orgId },
    };
    const res = await deliver(stripeEvent('checkout.session.completed', session, now));
    expect(res.statusCode).toBe(204);
    const lookups = stripe.requests.slice(before);
    expect(lookups.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/subscriptions/sub_completed_co',
    ]);
    expect((await summary(fresh.admin)).has_billing_account).toBe(true);
    const [row] = await h.ctx.db
      .select()
      .from(billingSubscriptions)
      .where(eq(billingSubscriptions.subscriptionId, 'sub_completed_co'));
    // stripe-mock's fixture subscription has a price of its own, which is none of our plans.
    expect(row).toMatchObject({ orgId: fresh.orgId, plan: null });
    expect((await summary(fresh.admin)).plan).toBe('free');
  });

  it('acknowledges an event for an org it cannot find, changing nothing', async () => {
    const stray = stripeEvent(
      'customer.subscription.created',
      subscriptionObject({
        id: 'sub_stray',
        customer: 'cus_unknown',
        price: PRICE_PRO,
        status: 'active',
        periodEnd: later(30),
      }),
      now,
    );
    expect((await deliver(stray)).statusCode).toBe(204);
    const rows = await h.ctx.db
      .select()
      .from(billingSubscriptions)
      .where(eq(billingSubscriptions.subscriptionId, 'sub_stray'));
    expect(rows).toEqual([]);
  });
});

describe('a paid period that ends', () => {
  it('keeps the paid plan until the period end, then the org is free and every experiment stays', async () => {
    const org = await h.org('period-end-co');
    const periodEnd = later(10);
    const cancelling = subscriptionObject({
      id: 'sub_period_end',
      customer: 'cus_period_end',
      price: PRICE_PRO,
      status: 'active',
      cancelAtPeriodEnd: true,
      periodEnd,
      orgId: org.orgId,
    });
    await deliver(stripeEvent('customer.subscription.updated', cancelling, now));
    const experiment = await h.experiment(org.admin);
    expect((await summary(org.admin)).plan).toBe('pro');

    now = new Date(periodEnd.getTime() + 1000);
    expect(await summary(org.admin)).toMatchObject({ plan: 'free', plan_source: 'free' });
    const usage = (await h.call(org.admin, { method: 'GET', url: '/v1/usage' })).json();
    expect(usage).toMatchObject({ plan: 'free', events: { used: 0, included: 50_000 } });
    const listed = (await h.call(org.admin, { method: 'GET', url: '/v1/experiments' })).json();
    expect(listed.map((e: { id: string }) => e.id)).toContain(experiment);
  });
});

describe('the OpenAPI document', () => {
  it('records the billing routes, the billing webhook and the plan override with their statuses', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    type Op = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
    const op = (method: string, path: string): Op => doc.paths[path]?.[method];
    const statuses = (method: string, path: string) =>
      Object.keys(op(method, path)?.responses ?? {}).map(Number);
    expect(statuses('get', '/v1/billing/summary')).toEqual(expect.arrayContaining([200, 401]));
    expect(
      op('get', '/v1/billing/summary').responses['200']?.content?.['application/json']?.schema,
    ).toMatchObject({
      required: expect.arrayContaining([
        'plan',
        'has_billing_account',
        'billing_configured',
        'subscription_status',
      ]),
    });
    expect(statuses('post', '/v1/billing/checkout-session')).toEqual(
      expect.arrayContaining([200, 401, 403, 409]),
    );
    expect(statuses('post', '/v1/billing/portal-session')).toEqual(
      expect.arrayContaining([200, 401, 403, 409]),
    );
    expect(statuses('post', '/v1/webhooks/stripe')).toEqual(expect.arrayContaining([204, 401]));
    expect(doc.paths['/v1/webhooks/stripe'].post.security).toEqual([{ billingSignature: [] }]);
    expect(statuses('put', '/v1/admin/orgs/{id}/plan-override')).toEqual(
      expect.arrayContaining([200, 401, 403, 404]),
    );
  });
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/test/support/process.ts';
import {
  billingSettings,
  PRICE_PRO,
  signature,
  stripeEvent,
  subscriptionObject,
} from '../../server/test/support/stripe-events.ts';
import { type StripeMock, startStripeMock } from '../../server/test/support/stripe-mock.ts';
import { axeViolations, launch, screenshot, watchConsole } from './support/browser.ts';
import { type Api, call, createExperiment, devToken, ingest, metric } from './support/seed.ts';

/**
 * Billing and the platform owner's pages in Chromium, against the real server on PGlite with
 * billing configured against Stripe's own stripe-mock (the billing tests' set-up). The hosted
 * checkout and portal pages stripe-mock names live on stripe.com: the browser is answered for
 * them locally with a stand-in page, so nothing leaves the machine.
 */
const OWNER = 'owner@arbiter.test';
const ORG = 'acme-biz';
let stripe: StripeMock;
let server: RunningServer;
let browser: Browser;
const consoles = new Map<Page, ReturnType<typeof watchConsole>>();
const hostedVisits: string[] = [];
let admin: Page;
let owner: Page;
let acme: Api;
let acmeOrgId = '';

async function check(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

async function newTab(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route(
    (url) => url.host !== new URL(server.url).host,
    (route) => {
      hostedVisits.push(route.request().url());
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>Hosted page</title><h1>Hosted page</h1>',
      });
    },
  );
  const page = await context.newPage();
  consoles.set(page, watchConsole(page));
  return page;
}

async function signIn(page: Page, email: string, org: string, role: string) {
  await page.goto(`${server.url}/experiments`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Organization').fill(org);
  await page.getByLabel('Role').selectOption(role);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Experiments', level: 1 }).waitFor();
}

/**
 * The URL in the server's answer to the next call of `path`, passed through to the page as it
 * came. Read on the way, because the page leaves for that URL at once (and Chromium then
 * forgets the response body).
 */
function hostedUrlAnswer(page: Page, path: string): Promise<string> {
  return new Promise((resolve) => {
    void page.route(`**${path}`, async (route) => {
      const response = await route.fetch();
      resolve(((await response.json()) as { url: string }).url);
      await route.fulfill({ response });
      await page.unroute(`**${path}`);
    });
  });
}

const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** A webhook delivery from the billing provider, signed as Stripe signs it. */
async function deliver(event: object) {
  const payload = JSON.stringify(event);
  const res = await fetch(`${server.url}/v1/webhooks/stripe`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'billing-signature': signature(payload, new Date()),
    },
    body: payload,
  });
  expect(res.status).toBe(204);
}

beforeAll(async () => {
  stripe = await startStripeMock();
  server = await startServer({
    ARBITER_DATA_DIR: mkdtempSync(join(tmpdir(), 'arbiter-dashboard-business-')),
    ARBITER_SESSION_JWKS_URL: '',
    ARBITER_DATABASE_URL: '',
    ARBITER_SECRET_KEY: '',
    ARBITER_SCHEDULER: 'false',
    ARBITER_PLATFORM_OWNER_EMAILS: OWNER,
    ARBITER_CONTACT_PER_IP_PER_HOUR: '100',
    ...billingSettings(stripe.origin),
  });
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  server?.child.kill('SIGTERM');
  await server?.exited;
  await stripe?.close();
});

describe('billing in Chromium, against the server with billing on stripe-mock', () => {
  it('shows a free org with no billing account, and no owner navigation to a non-owner', async () => {
    admin = await newTab();
    await signIn(admin, 'admin@acme.test', ORG, 'admin');
    acme = { base: server.url, token: await devToken(server.url, ORG, 'admin@acme.test') };
    acmeOrgId = (await call(acme, 'GET', '/v1/whoami')).org_id;
    await mainNav(admin).getByRole('link', { name: 'Billing' }).click();
    await admin.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await expect(admin.getByTestId('plan').textContent()).resolves.toBe('Free');
    await admin.getByTestId('no-account').waitFor();
    await expect(admin.getByTestId('subscription').textContent()).resolves.toBe(
      'No paid subscription',
    );
    await check(admin, 'billing-free');
    // The inbox answered 403 to this admin: no owner navigation, and the owner pages refuse.
    await expect(mainNav(admin).getByRole('link').allTextContents()).resolves.not.toContain(
      'Inbox',
    );
    await consoles.get(admin)?.expecting(403, async () => {
      await admin.goto(`${server.url}/admin/orgs`);
      await admin.getByRole('alert').filter({ hasText: 'Only platform owners' }).waitFor();
    });
  });

  it('checks out a plan on the hosted page the server asked the billing provider for', async () => {
    await admin.goto(`${server.url}/billing`);
    const answer = hostedUrlAnswer(admin, '/v1/billing/checkout-session');
    await admin.getByRole('button', { name: 'Check out Pro' }).click();
    const url = await answer;
    await admin.getByRole('heading', { name: 'Hosted page' }).waitFor();
    expect(admin.url()).toBe(new URL(url).href);
    expect(hostedVisits).toContain(url);
    const session = stripe.requests.find((r) => r.path === '/v1/checkout/sessions');
    expect(session?.params).toMatchObject({
      'line_items[0][price]': PRICE_PRO,
      'metadata[arbiter_org_id]': acmeOrgId,
      success_url: `${server.url}/billing?checkout=success`,
      cancel_url: `${server.url}/billing?checkout=cancelled`,
    });
  });

  it('after the provider confirms: plan, subscription status and period end, then the portal', async () => {
    const customer = stripe.requests.find((r) => r.path === '/v1/checkout/sessions')?.params
      .customer as string;
    const periodEnd = new Date(Date.now() + 30 * 86_400_000);
    const subscription = subscriptionObject({
      id: 'sub_dashboard_pro',
      customer,
      price: PRICE_PRO,
      status: 'active',
      periodEnd,
      orgId: acmeOrgId,
    });
    await deliver(stripeEvent('customer.subscription.created', subscription, new Date()));
    await admin.goto(`${server.url}/billing?checkout=success`);
    await admin.getByRole('status').filter({ hasText: 'Checkout complete' }).waitFor();
    await expect(admin.getByTestId('plan').textContent()).resolves.toBe('Pro');
    const line = await admin.getByTestId('subscription').textContent();
    const endDay = await admin.evaluate(
      (iso) => new Date(iso).toLocaleDateString(),
      periodEnd.toISOString(),
    );
    expect(line).toBe(
      `From your subscription · subscription active · current period ends ${endDay}`,
    );
    await admin.getByText('Your current plan').waitFor();
    await admin.getByRole('button', { name: 'Check out Business' }).waitFor();
    await expect(admin.getByRole('button', { name: 'Check out Pro' }).count()).resolves.toBe(0);
    await check(admin, 'billing-pro');
    const answer = hostedUrlAnswer(admin, '/v1/billing/portal-session');
    await admin.getByRole('button', { name: 'Open billing portal' }).click();
    const url = await answer;
    await admin.getByRole('heading', { name: 'Hosted page' }).waitFor();
    expect(admin.url()).toBe(new URL(url).href);
    const portal = stripe.requests.find((r) => r.path === '/v1/billing_portal/sessions');
    expect(portal?.params).toMatchObject({ customer, return_url: `${server.url}/billing` });
  });

  it('shows a member the plan with the buttons disabled (billing changes are admin-only)', async () => {
    const member = await newTab();
    await signIn(member, 'member@acme.test', ORG, 'member');
    // Back from a checkout the user abandoned: the hosted page returns with checkout=cancelled.
    await member.goto(`${server.url}/billing?checkout=cancelled`);
    await member.getByRole('status').filter({ hasText: 'Checkout cancelled' }).waitFor();
    await member.getByText('Only org admins and owners can change billing.').waitFor();
    await expect(member.getByTestId('plan').textContent()).resolves.toBe('Pro');
    await expect(
      member.getByRole('button', { name: 'Check out Business' }).isDisabled(),
    ).resolves.toBe(true);
    await expect(
      member.getByRole('button', { name: 'Open billing portal' }).isDisabled(),
    ).resolves.toBe(true);
    await check(member, 'billing-member');
  });
});

describe('the platform owner’s pages in Chromium', () => {
  const contactNames = ['Ada Contact', 'Ben Contact', 'Cy Contact'];

  it('shows an owner the Inbox and Platform navigation, and the inbox newest first, a page at a time', async () => {
    // 3 contact messages, then 22 feedback entries: 25 in all, the newest is feedback #22.
    for (const name of contactNames) {
      const res = await fetch(`${server.url}/v1/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name,
          email: `${name.split(' ')[0]?.toLowerCase()}@prospect.test`,
          company: 'Prospect Ltd',
          kind: 'sales',
          message: `Hello from ${name}`,
        }),
      });
      expect(res.status).toBe(202);
    }
    for (let i = 1; i <= 22; i++)
      await call(acme, 'POST', '/v1/feedback', {
        message: `Feedback number ${i}`,
        category: 'idea',
      });
    owner = await newTab();
    await signIn(owner, OWNER, 'arbiter-hq', 'admin');
    await mainNav(owner).getByRole('link', { name: 'Inbox' }).click();
    await owner.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    const items = owner.getByTestId('inbox-item');
    await expect.poll(() => items.count()).toBe(20);
    await expect(items.first().textContent()).resolves.toContain('Feedback number 22');
    await expect(items.first().textContent()).resolves.toContain(`${ORG} · admin@acme.test`);
    await expect(items.nth(19).textContent()).resolves.toContain('Feedback number 3');
    await check(owner, 'admin-inbox');
    await owner.getByRole('button', { name: 'Older messages' }).click();
    await expect.poll(() => owner.url()).toContain('cursor=');
    await owner.getByText('Feedback number 2', { exact: true }).waitFor();
    await expect(items.allTextContents()).resolves.toEqual([
      expect.stringContaining('Feedback number 2'),
      expect.stringContaining('Feedback number 1'),
      expect.stringContaining('Hello from Cy Contact'),
      expect.stringContaining('Hello from Ben Contact'),
      expect.stringContaining('Hello from Ada Contact'),
    ]);
    await expect(items.nth(4).textContent()).resolves.toMatch(
      /^Contact · sales .+ · Ada Contact · ada@prospect\.test · Prospect LtdHello from Ada Contact$/,
    );
    await expect(owner.getByRole('button', { name: 'Older messages' }).count()).resolves.toBe(0);
    await check(owner, 'admin-inbox-older');
  });

  it('shows the overview: totals, events per day for 30 days, orgs per plan', async () => {
    const key = (await call(acme, 'POST', '/v1/keys', { scope: 'secret' })).key as string;
    const id = await createExperiment(acme, 'pricing-page', { control: 50, treatment: 50 }, [
      metric('latency', 'latency', 'welch_t'),
    ]);
    const ts = new Date().toISOString();
    const exposures = Array.from({ length: 40 }, (_, i) => ({
      event_id: `ov-${i}`,
      type: 'exposure',
      experiment_id: id,
      user_id: `u-${i}`,
      timestamp: ts,
    }));
    await ingest(server.url, key, exposures);
    const ownerApi = { base: server.url, token: await devToken(server.url, 'arbiter-hq', OWNER) };
    // The per-day series counts folded events: wait for the worker to fold all 40.
    await expect
      .poll(async () => {
        const o = await call(ownerApi, 'GET', '/v1/admin/overview');
        return o.events_per_day.reduce((n: number, d: { events: number }) => n + d.events, 0);
      })
      .toBe(40);
    const overview = await call(ownerApi, 'GET', '/v1/admin/overview');
    expect(overview).toMatchObject({ orgs: 2, users: 3, experiments: 1, events_this_month: 40 });
    await owner.getByRole('link', { name: 'Overview' }).click();
    await owner.getByRole('heading', { name: 'Platform overview' }).waitFor();
    const total = (label: string) =>
      owner.locator('.totals > div').filter({ hasText: label }).locator('dd').textContent();
    await expect(total('Orgs')).resolves.toBe('2');
    await expect(total('Users')).resolves.toBe('3');
    await expect(total('Experiments')).resolves.toBe('1');
    await expect(total('Events this month')).resolves.toBe('40');
    await owner.getByRole('img', { name: 'Events per day over 30 days: 40 in all' }).waitFor();
    const plans = owner.getByRole('table', { name: 'Orgs per plan' });
    await expect(plans.getByRole('row', { name: 'Pro 1' }).count()).resolves.toBe(1);
    await expect(plans.getByRole('row', { name: 'Free 1' }).count()).resolves.toBe(1);
    await check(owner, 'admin-overview');
  });

  it('lists every org with plan, override and usage', async () => {
    await owner.getByRole('link', { name: 'Orgs' }).click();
    const row = owner.getByRole('row').filter({ hasText: ORG });
    await expect
      .poll(() => row.getByRole('cell').allTextContents())
      .toEqual([ORG, 'Pro', '—', '40 of 1,000,000', '0 of 50,000']);
    await owner.getByRole('row').filter({ hasText: 'arbiter-hq' }).getByText('Free').waitFor();
    await check(owner, 'admin-orgs');
  });

  it('shows an org with its members and roles, and pins then clears its plan with a confirmation', async () => {
    await owner.getByRole('link', { name: ORG }).click();
    await owner.getByRole('heading', { name: ORG, level: 1 }).waitFor();
    const members = owner.getByRole('table', { name: 'Members' });
    await members.getByRole('row', { name: /admin@acme\.test admin/ }).waitFor();
    await members.getByRole('row', { name: /member@acme\.test member/ }).waitFor();
    await owner.getByRole('progressbar', { name: 'Events: 40 of 1000000' }).waitFor();
    await check(owner, 'admin-org');
    const override = owner.getByRole('region', { name: 'Plan override' });
    await override.getByLabel('Plan to pin').selectOption('business');
    await override.getByRole('button', { name: 'Pin plan' }).click();
    await override.getByText('Pin this org to Business?').waitFor();
    await check(owner, 'admin-org-pin-confirm');
    await override.getByRole('button', { name: 'Yes, pin' }).click();
    await override.getByText('Pinned to Business: billing webhooks cannot change it.').waitFor();
    await expect(owner.getByTestId('org-plan').textContent()).resolves.toBe(
      'Plan Business · pinned by the platform owner · subscription active',
    );
    expect(await call(acme, 'GET', '/v1/billing/summary')).toMatchObject({
      plan: 'business',
      plan_source: 'override',
      override: 'business',
    });
    // The org's own billing page says the pin is in force and offers no checkout.
    await admin.goto(`${server.url}/billing`);
    await admin.getByTestId('override').waitFor();
    await expect(admin.getByTestId('plan').textContent()).resolves.toBe('Business');
    await expect(admin.getByRole('button', { name: /^Check out/ }).count()).resolves.toBe(0);
    await check(admin, 'billing-override');
    await override.getByRole('button', { name: 'Clear override' }).click();
    await override.getByRole('button', { name: 'Yes, clear' }).click();
    await override.getByText('No override: the plan follows billing.').waitFor();
    expect(await call(acme, 'GET', '/v1/billing/summary')).toMatchObject({
      plan: 'pro',
      plan_source: 'billing',
      override: null,
    });
    const audit = await call(acme, 'GET', '/v1/audit');
    expect(
      audit.filter((e: { action: string }) => e.action === 'plan.changed').length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('shows health: the database, ingest, the nightly pipeline and the providers', async () => {
    await owner.getByRole('link', { name: 'Health' }).click();
    await expect
      .poll(() => owner.getByTestId('health-database').textContent())
      .toMatch(/^reachable · \d+\.\d ms round trip$/);
    await expect(owner.getByTestId('health-ingest').textContent()).resolves.toBe(
      'every stored event folded · 0 quarantined',
    );
    await expect(owner.getByTestId('health-nightly').textContent()).resolves.toMatch(
      /^no run yet · schedule .+ UTC \(scheduler not in this process\)$/,
    );
    await expect(owner.getByTestId('health-providers').textContent()).resolves.toBe(
      'identity: no · identity webhooks: no · identity directory: no · judge: no · mail: no · billing: yes · billing webhooks: yes',
    );
    await check(owner, 'admin-health');
  });

  it('works at 390 px wide, and each page loads on its own (served on reload)', async () => {
    await owner.setViewportSize({ width: 390, height: 844 });
    const pages: Array<[string, string, () => Promise<void>]> = [
      ['admin-inbox', '/admin/inbox', () => owner.getByTestId('inbox-item').first().waitFor()],
      [
        'admin-overview',
        '/admin/overview',
        () => owner.getByRole('img', { name: /Events per day/ }).waitFor(),
      ],
      ['admin-orgs', '/admin/orgs', () => owner.getByRole('link', { name: ORG }).waitFor()],
      [
        'admin-org',
        `/admin/orgs/${acmeOrgId}`,
        () => owner.getByRole('table', { name: 'Members' }).waitFor(),
      ],
      ['admin-health', '/admin/health', () => owner.getByTestId('health-database').waitFor()],
      ['billing', '/billing', () => owner.getByTestId('plan').waitFor()],
    ];
    for (const [name, path, ready] of pages) {
      await owner.goto(`${server.url}${path}`);
      await ready();
      await check(owner, `${name}-390`);
      const overflow = await owner.evaluate(() => document.documentElement.scrollWidth);
      expect(overflow, name).toBeLessThanOrEqual(390);
    }
  });

  it('logged no console error on any page', () => {
    expect([...consoles.values()].flatMap((c) => c.errors)).toEqual([]);
  });
});

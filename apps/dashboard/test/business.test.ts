import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  onTestFinished,
} from 'vitest';
import {
  billingSettings,
  PRICE_PRO,
  stripeEvent,
  subscriptionObject,
} from '../../server/test/support/stripe-events.ts';
import { type StripeMock, startStripeMock } from '../../server/test/support/stripe-mock.ts';
import { axeViolations, launch, screenshot, watchConsole } from './support/browser.ts';
import { call, devToken, newOrg, signIn } from './support/seed.ts';
import {
  checkoutCustomer,
  deliverBillingEvent,
  seedCustomerOrg,
  subscribeToPro,
} from './support/seed-billing.ts';
import { serveEmbedded, type TestServer } from './support/server.ts';

/**
 * Billing and the platform owner's pages in Chromium, against the real server on PGlite with
 * billing configured against Stripe's own stripe-mock (the billing tests' set-up). The hosted
 * checkout and portal pages stripe-mock names live on stripe.com: the browser is answered for
 * them locally with a stand-in page, so nothing leaves the machine.
 */
const OWNER = 'owner@arbiter.test';
let stripe: StripeMock;
/** The file's server; the tests of platform-wide totals start one of their own. */
let server: TestServer;
let browser: Browser;
/** The tabs of the running test, each in its own context, closed after it. */
let tabs: Array<{ context: BrowserContext; console: ReturnType<typeof watchConsole> }> = [];
const hostedVisits: string[] = [];

async function check(page: Page, name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

/** A tab in a context of its own (its own session), answering for the hosted pages. */
async function newTab(base = server.url): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route(
    (url) => url.host !== new URL(base).host,
    (route) => {
      hostedVisits.push(route.request().url());
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>Hosted page</title><h1>Hosted page</h1>',
      });
    },
  );
  const page = await context.newPage();
  tabs.push({ context, console: watchConsole(page) });
  return page;
}

const consoleOf = (page: Page) => tabs.find((t) => t.context === page.context())?.console;

/** A new tab signed in to the org, as its admin or member. */
async function tabOf(org: string, email: string, role: 'admin' | 'member', base = server.url) {
  const page = await newTab(base);
  await signIn(page, base, { email, org, role });
  return page;
}

/** A new tab of the platform owner, signed in to the owner's own org. */
const ownerTab = (base = server.url) => tabOf('arbiter-hq', OWNER, 'admin', base);

/** The owner's tab on the platform pages (and their tabs), through the main navigation. */
async function platformTab(base = server.url) {
  const owner = await ownerTab(base);
  await mainNav(owner).getByRole('link', { name: 'Platform' }).click();
  await owner.getByRole('heading', { name: 'Platform overview' }).waitFor();
  return owner;
}

/** Settings of a server with billing on stripe-mock and one platform owner. */
const serverSettings = () => ({
  ARBITER_PLATFORM_OWNER_EMAILS: OWNER,
  ARBITER_CONTACT_PER_IP_PER_HOUR: '100',
  ...billingSettings(stripe.origin),
});

/**
 * The URL in the server's answer to the next call of `path`, passed through to the page as it
 * came. Read on the way, because the page leaves for that URL at once (and Chromium then
 * forgets the response body). Resolves once the route is in place, so that the click which
 * makes the call cannot outrun it.
 */
async function hostedUrlAnswer(page: Page, path: string): Promise<{ url: Promise<string> }> {
  let resolve: (url: string) => void = () => {};
  const url = new Promise<string>((r) => {
    resolve = r;
  });
  await page.route(`**${path}`, async (route) => {
    const response = await route.fetch();
    resolve(((await response.json()) as { url: string }).url);
    await route.fulfill({ response });
    await page.unroute(`**${path}`);
  });
  return { url };
}

const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/**
 * A server of the test's own, for the owner's pages that count the whole platform (every
 * message, org, user and event): what other tests made on the shared server would change the
 * counts. Stopped when the test ends.
 */
async function platformOfItsOwn(): Promise<TestServer> {
  const own = await serveEmbedded(serverSettings());
  onTestFinished(() => own.stop());
  return own;
}

beforeAll(async () => {
  stripe = await startStripeMock();
  server = await serveEmbedded(serverSettings());
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await stripe?.close();
});

beforeEach(() => {
  tabs = [];
});

afterEach(async () => {
  for (const tab of tabs) await tab.context.close();
  // No console error on any page the test visited, beyond a problem it said it provokes.
  expect(tabs.flatMap((t) => t.console.errors)).toEqual([]);
});

/** The owner's pages (and the owner's billing page), with what shows each has loaded. */
function ownerPages(
  owner: Page,
  org: string,
  orgId: string,
): Array<[string, string, () => Promise<void>]> {
  return [
    ['admin-inbox', '/admin/inbox', () => owner.getByTestId('inbox-item').first().waitFor()],
    [
      'admin-overview',
      '/admin/overview',
      () => owner.getByRole('img', { name: /Events per day/ }).waitFor(),
    ],
    ['admin-orgs', '/admin/orgs', () => owner.getByRole('link', { name: org }).waitFor()],
    [
      'admin-org',
      `/admin/orgs/${orgId}`,
      () => owner.getByRole('table', { name: 'Members' }).waitFor(),
    ],
    ['admin-health', '/admin/health', () => owner.getByTestId('health-database').waitFor()],
    ['billing', '/billing', () => owner.getByTestId('plan').waitFor()],
  ];
}

describe('billing in Chromium, against the server with billing on stripe-mock', () => {
  it('shows a free org with no billing account, and no owner navigation to a non-owner', async () => {
    const { org } = await newOrg(server.url, 'acme-biz', 'admin@acme.test');
    const admin = await tabOf(org, 'admin@acme.test', 'admin');
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
    await consoleOf(admin)?.expecting(403, async () => {
      await admin.goto(`${server.url}/admin/orgs`);
      await admin.getByRole('alert').filter({ hasText: 'Only platform owners' }).waitFor();
    });
  });

  it('checks out a plan on the hosted page the server asked the billing provider for', async () => {
    const { org, api } = await newOrg(server.url, 'acme-biz', 'admin@acme.test');
    const acmeOrgId = (await call(api, 'GET', '/v1/whoami')).org_id;
    const admin = await tabOf(org, 'admin@acme.test', 'admin');
    await admin.goto(`${server.url}/billing`);
    const answer = await hostedUrlAnswer(admin, '/v1/billing/checkout-session');
    // What stripe-mock receives from here on is this checkout's.
    const since = stripe.requests.length;
    await admin.getByRole('button', { name: 'Check out Pro' }).click();
    const url = await answer.url;
    await admin.getByRole('heading', { name: 'Hosted page' }).waitFor();
    expect(admin.url()).toBe(new URL(url).href);
    expect(hostedVisits).toContain(url);
    const session = stripe.requests.slice(since).find((r) => r.path === '/v1/checkout/sessions');
    expect(session?.params).toMatchObject({
      'line_items[0][price]': PRICE_PRO,
      'metadata[arbiter_org_id]': acmeOrgId,
      success_url: `${server.url}/billing?checkout=success`,
      cancel_url: `${server.url}/billing?checkout=cancelled`,
    });
  });

  it('after the provider confirms: plan, subscription status and period end, then the portal', async () => {
    const { org, api } = await newOrg(server.url, 'acme-biz', 'admin@acme.test');
    const acmeOrgId = (await call(api, 'GET', '/v1/whoami')).org_id;
    const customer = await checkoutCustomer(api, stripe, acmeOrgId);
    const admin = await tabOf(org, 'admin@acme.test', 'admin');
    const periodEnd = new Date(Date.now() + 30 * 86_400_000);
    const subscription = subscriptionObject({
      id: `sub_dashboard_pro_${acmeOrgId}`,
      customer,
      price: PRICE_PRO,
      status: 'active',
      periodEnd,
      orgId: acmeOrgId,
    });
    const event = stripeEvent('customer.subscription.created', subscription, new Date());
    expect(await deliverBillingEvent(server.url, event)).toBe(204);
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
    const answer = await hostedUrlAnswer(admin, '/v1/billing/portal-session');
    const since = stripe.requests.length;
    await admin.getByRole('button', { name: 'Open billing portal' }).click();
    const url = await answer.url;
    await admin.getByRole('heading', { name: 'Hosted page' }).waitFor();
    expect(admin.url()).toBe(new URL(url).href);
    const portal = stripe.requests
      .slice(since)
      .find((r) => r.path === '/v1/billing_portal/sessions');
    expect(portal?.params).toMatchObject({ customer, return_url: `${server.url}/billing` });
  });

  it('shows a member the plan with the buttons disabled (billing changes are admin-only)', async () => {
    const { org, api } = await newOrg(server.url, 'acme-biz', 'admin@acme.test');
    await subscribeToPro(api, stripe, (await call(api, 'GET', '/v1/whoami')).org_id);
    const member = await tabOf(org, 'member@acme.test', 'member');
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
    const platform = await platformOfItsOwn();
    const { org: ORG, api: acme } = await newOrg(platform.url, 'acme-biz', 'admin@acme.test');
    // 3 contact messages, then 22 feedback entries: 25 in all, the newest is feedback #22.
    for (const name of contactNames) {
      const res = await fetch(`${platform.url}/v1/contact`, {
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
    const owner = await ownerTab(platform.url);
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
    // The platform: one paying org (an admin, a member, one experiment, 40 events) and the owner's.
    const platform = await platformOfItsOwn();
    await seedCustomerOrg(platform.url, stripe);
    const owner = await ownerTab(platform.url);
    await mainNav(owner).getByRole('link', { name: 'Inbox' }).click();
    const ownerApi = {
      base: platform.url,
      token: await devToken(platform.url, 'arbiter-hq', OWNER),
    };
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
    const { org: ORG } = await seedCustomerOrg(server.url, stripe);
    const owner = await platformTab();
    await owner.getByRole('link', { name: 'Orgs' }).click();
    const row = owner.getByRole('row').filter({ hasText: ORG });
    await expect
      .poll(() => row.getByRole('cell').allTextContents())
      .toEqual([ORG, 'Pro', '—', '40 of 1,000,000', '0 of 50,000']);
    await owner.getByRole('row').filter({ hasText: 'arbiter-hq' }).getByText('Free').waitFor();
    await check(owner, 'admin-orgs');
  });

  it('shows an org with its members and roles, and pins then clears its plan with a confirmation', async () => {
    const { org: ORG, api: acme } = await seedCustomerOrg(server.url, stripe);
    const admin = await tabOf(ORG, 'admin@acme.test', 'admin');
    const owner = await ownerTab();
    await owner.goto(`${server.url}/admin/orgs`);
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
    // The org's summary is fetched again after the pin: wait for it rather than read it once.
    await expect
      .poll(() => owner.getByTestId('org-plan').textContent())
      .toBe('Plan Business · pinned by the platform owner · subscription active');
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
    const owner = await platformTab();
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
    const { org, orgId, api } = await seedCustomerOrg(server.url, stripe);
    // The inbox page needs a message to show.
    await call(api, 'POST', '/v1/feedback', { message: 'Seen at 390 px', category: 'idea' });
    const owner = await ownerTab();
    await owner.setViewportSize({ width: 390, height: 844 });
    const pages = ownerPages(owner, org, orgId);
    for (const [name, path, ready] of pages) {
      await owner.goto(`${server.url}${path}`);
      await ready();
      await check(owner, `${name}-390`);
      const overflow = await owner.evaluate(() => document.documentElement.scrollWidth);
      expect(overflow, name).toBeLessThanOrEqual(390);
    }
  });

  it('logged no console error on any page', async () => {
    // Every test's own tabs are checked after it (afterEach); this one visits every owner page.
    const { org, orgId, api } = await seedCustomerOrg(server.url, stripe);
    await call(api, 'POST', '/v1/feedback', { message: 'Every page visited', category: 'idea' });
    const owner = await ownerTab();
    for (const [, path, ready] of ownerPages(owner, org, orgId)) {
      await owner.goto(`${server.url}${path}`);
      await ready();
      await owner.waitForLoadState('networkidle');
    }
    const admin = await tabOf(org, 'admin@acme.test', 'admin');
    await admin.goto(`${server.url}/billing`);
    await admin.getByTestId('plan').waitFor();
    await admin.waitForLoadState('networkidle');
    expect(tabs.flatMap((t) => t.console.errors)).toEqual([]);
  });
});

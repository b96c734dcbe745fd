import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { webhookEndpoints } from '../../server/src/db/schema.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { type BrowserPage, browserTestFrame } from './support/browser-page.ts';
import { type Received, type Receiver, startReceiver } from './support/receiver.ts';
import { type Api, call, devToken, newOrg, signIn } from './support/seed.ts';
import { serveEmbedded, type TestServer } from './support/server.ts';
import { restartWithStored } from './support/stored-state.ts';

/**
 * The Webhooks page in Chromium against the real server, whose worker delivers to a receiver
 * on the loopback (private addresses allowed, as for a self-hosted set-up): an endpoint added
 * from the page, its secret shown once and verifying what arrives, the delivery listed and
 * resent, event types edited, the secret rotated, the endpoint deleted; an endpoint the server
 * disabled after five days of failures shown as a red banner and enabled again; a member told
 * the page is for admins. What the page says is compared with what the API answers.
 */
const ENV = { ARBITER_WEBHOOKS_ALLOW_PRIVATE: 'true' };
let server: TestServer;
let page: Page;
let receiver: Receiver;
const ui: BrowserPage = browserTestFrame(ENV);
beforeAll(async () => {
  ({ server } = ui);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
beforeEach(() => {
  ({ page } = ui);
  receiver.answer(200);
});

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

/** At 390 px: axe again, and nothing wider than the screen outside a scrollable region. */
async function narrow(name: string) {
  await page.setViewportSize({ width: 390, height: 844 });
  await check(name);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(overflow, name).toBeLessThanOrEqual(390);
}

const button = (name: string) => page.getByRole('button', { name, exact: true });
const card = (url: string) => page.getByRole('region', { name: `Endpoint ${url}` });
const endpoints = (api: Api) => call(api, 'GET', '/v1/webhook-endpoints');
const arrived = (eventId: string) =>
  receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string };

it('adds an endpoint, shows its secret once, and lists the test event that arrives', async () => {
  const { org, api } = await newOrg(server.url, 'hooks');
  await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByText('No endpoints yet').waitFor();
  await page.getByLabel('URL').fill(receiver.url);
  await page.getByLabel('Description').fill('The on-call bot');
  await button('Add endpoint').click();
  const secret = (await page.getByTestId('webhook-secret').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_/);
  const [stored] = await endpoints(api);
  expect(stored).toMatchObject({ url: receiver.url, event_types: [], enabled: true });
  expect(stored.secret).toBeUndefined();
  const endpoint = card(receiver.url);
  await expect(endpoint.getByTestId('endpoint-events').textContent()).resolves.toBe(
    'every event type',
  );
  await check('webhooks-created');

  await endpoint.getByRole('button', { name: 'Send test event' }).click();
  const queued = (await page.getByText('Test event queued').textContent()) ?? '';
  const eventId = queued.replace('Test event queued: ', '');
  await expect.poll(() => arrived(eventId).length).toBe(1);
  expect(verify(secret, arrived(eventId)[0] as Received).type).toBe('webhook_endpoint.test');
  const row = endpoint.getByTestId('delivery').filter({ hasText: eventId });
  await expect.poll(async () => row.textContent()).toContain('delivered');
  const [delivery] = await call(api, 'GET', `/v1/webhook-endpoints/${stored.id}/deliveries`);
  expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered', attempts: 1 });
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells.slice(1, 4)).toEqual(['delivered', '1', 'HTTP 200']);
  await check('webhooks-delivered');

  await row.getByRole('button', { name: /^Retry/ }).click();
  await expect.poll(() => arrived(eventId).length).toBe(2);
  await expect.poll(async () => row.getByRole('cell').nth(2).textContent()).toBe('2');
  await narrow('webhooks-390');
});

it('edits event types, disables and enables, rotates the secret and deletes', async () => {
  const { org, api } = await newOrg(server.url, 'hooks-edit');
  const created = await call(api, 'POST', '/v1/webhook-endpoints', { url: receiver.url });
  await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'owner' });
  await page.goto(`${server.url}/webhooks`);
  const endpoint = card(receiver.url);
  await endpoint.getByRole('button', { name: 'Edit event types' }).click();
  await endpoint.getByRole('checkbox', { name: /results\.published/ }).check();
  await endpoint.getByRole('checkbox', { name: /guardrail\.violated/ }).check();
  await check('webhooks-editing');
  await endpoint.getByRole('button', { name: 'Save event types' }).click();
  await expect
    .poll(async () => endpoint.getByTestId('endpoint-events').textContent())
    .toBe('results.published, guardrail.violated');
  expect((await endpoints(api))[0].event_types).toEqual([
    'results.published',
    'guardrail.violated',
  ]);

  await endpoint.getByRole('button', { name: 'Disable', exact: true }).click();
  await endpoint.getByText('Disabled', { exact: true }).waitFor();
  expect((await endpoints(api))[0]).toMatchObject({ enabled: false, disabled_reason: null });
  await expect(
    endpoint.getByRole('button', { name: 'Send test event' }).isDisabled(),
  ).resolves.toBe(true);
  await endpoint.getByRole('button', { name: 'Enable', exact: true }).click();
  await endpoint.getByText('Enabled', { exact: true }).waitFor();
  expect((await endpoints(api))[0].enabled).toBe(true);

  await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
  await endpoint.getByRole('button', { name: 'Yes, rotate' }).click();
  const rotated = (await endpoint.getByTestId('webhook-secret').textContent()) ?? '';
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(created.secret);
  await check('webhooks-rotated');

  await endpoint.getByRole('button', { name: 'Delete' }).click();
  await endpoint.getByRole('button', { name: 'Yes, delete' }).click();
  await page.getByText('No endpoints yet').waitFor();
  expect(await endpoints(api)).toEqual([]);
});

it('shows an endpoint the server disabled as a red banner, and enables it again', async () => {
  // Five days of failures, written where the server keeps them; the server itself disables.
  let own = await serveEmbedded(ENV);
  try {
    const { org, api: first } = await newOrg(own.url, 'hooks-down');
    const made = await call(first, 'POST', '/v1/webhook-endpoints', { url: receiver.url });
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000);
    own = await restartWithStored(own, ENV, (db) =>
      db.update(webhookEndpoints).set({ failingSince: sixDaysAgo }),
    );
    const api = { base: own.url, token: await devToken(own.url, org) };
    receiver.answer(500);
    await call(api, 'POST', `/v1/webhook-endpoints/${made.id}/test`);
    await expect
      .poll(async () => (await endpoints(api))[0].disabled_reason)
      .toBe('every attempt failed for 5 days');
    const [disabled] = await endpoints(api);
    expect(disabled).toMatchObject({ enabled: false, failing_since: sixDaysAgo.toISOString() });

    await signIn(page, own.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page.goto(`${own.url}/webhooks`);
    const banner = card(receiver.url).getByRole('alert');
    const at = sixDaysAgo.toISOString();
    await expect(banner.textContent()).resolves.toContain(
      `Disabled by Arbiter: every attempt failed for 5 days. Failing since ${at.slice(0, 10)} ${at.slice(11, 16)} UTC.`,
    );
    await check('webhooks-disabled-banner');
    receiver.answer(200);
    await banner.getByRole('button', { name: 'Enable again' }).click();
    await card(receiver.url).getByText('Enabled', { exact: true }).waitFor();
    expect((await endpoints(api))[0]).toMatchObject({ enabled: true, disabled_reason: null });
    await expect(card(receiver.url).getByRole('alert').count()).resolves.toBe(0);
  } finally {
    await own.stop();
  }
});

it('tells a member the endpoints are for admins, and asks the server nothing', async () => {
  const { org, api } = await newOrg(server.url, 'hooks-member');
  await call(api, 'POST', '/v1/webhook-endpoints', { url: receiver.url });
  const asked: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/v1/webhook-endpoints')) asked.push(r.url());
  });
  await signIn(page, server.url, { email: 'member@example.com', org, role: 'member' });
  await page.goto(`${server.url}/webhooks`);
  await page.getByTestId('webhooks-members').waitFor();
  await expect(page.getByRole('button', { name: 'Add endpoint' }).count()).resolves.toBe(0);
  await check('webhooks-member');
  expect(asked).toEqual([]);
});

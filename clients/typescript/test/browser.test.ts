import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Arbiter as NodeArbiter } from '../src/index.ts';
import { type FakeArbiter, startFakeArbiter } from './support/fake-arbiter.ts';
import { configOf, twoArms } from './support/fixtures.ts';
import { memoryLogger } from './support/logger.ts';
import { until } from './support/wait.ts';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PAGE = `<!doctype html><meta charset="utf-8"><title>arbiter</title>
<script type="module">
  import { Arbiter } from '/browser.js';
  window.Arbiter = Arbiter;
  window.loaded = true;
</script>`;

/** The page's view of the client, as the test drives it through page.evaluate. */
interface PageWindow {
  Arbiter: typeof NodeArbiter;
  client: NodeArbiter;
  logs: string[];
  loaded: boolean;
}

let fake: FakeArbiter;
let site: Server;
let siteUrl: string;
let profile: string;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  const dist = join(inject('packageRoot'), 'dist');
  fake = await startFakeArbiter({ config: configOf(1, twoArms()) });
  // The page comes from another origin than the API, as on a real site.
  site = createServer((req, res) => {
    if (req.url === '/browser.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(readFileSync(join(dist, 'browser.js')));
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  profile = mkdtempSync(join(tmpdir(), 'arbiter-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  page = await browser.newPage();
  await openPage();
});

afterAll(async () => {
  await browser?.close();
  await fake?.close();
  await new Promise((r) => site?.close(r));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Loads the page and makes a client in it; a reload starts from nothing but IndexedDB. */
async function openPage(): Promise<void> {
  await page.goto(siteUrl);
  await page.waitForFunction(() => (window as unknown as PageWindow).loaded === true);
  await page.evaluate(
    ({ baseUrl, apiKey }) => {
      const w = window as unknown as PageWindow;
      w.logs = [];
      w.client = new w.Arbiter({
        apiKey,
        baseUrl,
        logger: { warn: (m: string) => w.logs.push(m), error: (m: string) => w.logs.push(m) },
        trackExposures: false,
        flushIntervalMs: 3_600_000,
        requestTimeoutMs: 5_000,
        retryBaseDelayMs: 1,
        retryMaxDelayMs: 5,
      });
    },
    { baseUrl: fake.baseUrl, apiKey: fake.apiKey },
  );
}

function trackInPage(users: string[]): Promise<void> {
  return page.evaluate((ids) => {
    const { client } = window as unknown as PageWindow;
    for (const user_id of ids) {
      client.track('business_event', {
        experiment_id: 'checkout-prompt',
        user_id,
        business_metric: 'signup',
        value: 1,
      });
    }
  }, users);
}

const stats = () => page.evaluate(() => (window as unknown as PageWindow).client.stats());
const flush = () => page.evaluate(() => (window as unknown as PageWindow).client.flush());
const storedUsers = () => [...fake.events.values()].map((e) => e.user_id).sort();

describe('the browser bundle in Chromium', () => {
  it('loads the config and assigns as the Node client does, by name and by id', async () => {
    const users = Array.from({ length: 50 }, (_, i) => `user-${i}`);
    const inPage = await page.evaluate(async (ids) => {
      const { client } = window as unknown as PageWindow;
      const ready = await client.ready();
      const byName = ids.map((u) => client.assign('checkout-prompt', u));
      const byId = ids.map((u) => client.assign('0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e', u));
      return { ready, byName, byId };
    }, users);
    expect(inPage.ready).toBe(true);
    expect(inPage.byId).toEqual(inPage.byName);
    const node = new NodeArbiter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      logger: memoryLogger(),
      trackExposures: false,
    });
    await node.ready();
    expect(inPage.byName).toEqual(users.map((u) => node.assign('checkout-prompt', u)));
    await node.close();
    expect(new Set(inPage.byName)).toEqual(new Set(['control', 'concise']));
  });

  it('tracks events to the API', async () => {
    fake.events.clear();
    await trackInPage(['b-1', 'b-2']);
    await flush();
    expect(storedUsers()).toEqual(['b-1', 'b-2']);
    for (const e of fake.events.values()) expect(e.event_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('spills to IndexedDB while the API is down and replays, after a reload, when it is back', async () => {
    fake.events.clear();
    await fake.stop();
    await trackInPage(['off-1', 'off-2', 'off-3']);
    await flush();
    expect(await stats()).toMatchObject({ spilled: 3, dropped: 0 });
    const spilled = await page.evaluate(async () => {
      const names = (await indexedDB.databases()).map((d) => d.name ?? '');
      const name = names.find((n) => n.startsWith('arbiter-offline-events-')) ?? '';
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const all = await new Promise<{ event_id: string; timestamp: string }[]>((resolve) => {
        const req = db.transaction('events').objectStore('events').getAll();
        req.onsuccess = () => resolve(req.result);
      });
      db.close();
      return all;
    });
    expect(spilled).toHaveLength(3);

    // A new page (a new client) finds the spilled events and sends them once the API is back.
    await openPage();
    await fake.start();
    await flush();
    expect(storedUsers()).toEqual(['off-1', 'off-2', 'off-3']);
    for (const e of spilled) expect(fake.events.get(e.event_id)?.timestamp).toBe(e.timestamp);
    expect(await stats()).toMatchObject({ replayed: 3 });
  });

  it('flushes when the page is hidden', async () => {
    fake.events.clear();
    await trackInPage(['hidden-1']);
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await until(() => fake.events.size === 1);
    expect(storedUsers()).toEqual(['hidden-1']);
  });
});

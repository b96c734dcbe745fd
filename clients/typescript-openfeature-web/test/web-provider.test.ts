import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Arbiter as NodeArbiter } from '@arbiter/client';
import type { ProviderEvents as Events, OpenFeature as OpenFeatureApi } from '@openfeature/web-sdk';
import { build } from 'esbuild';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createExperiment,
  experimentConfig,
  type Org,
  RealServer,
  waitFor,
} from '../../typescript-openfeature/test/support/server.ts';
import type { ArbiterWebProvider } from '../src/index.ts';

// The web provider through @openfeature/web-sdk in Chromium against the real server.
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'];
const PAGE = `<!doctype html><meta charset="utf-8"><title>openfeature</title>
<script type="module" src="/page.js"></script>`;

/** What the page's script puts on `window`, as the test drives it through page.evaluate. */
interface PageWindow {
  Arbiter: typeof NodeArbiter;
  OpenFeature: typeof OpenFeatureApi;
  ProviderEvents: typeof Events;
  ArbiterWebProvider: typeof ArbiterWebProvider;
  seen: string[];
  loaded: boolean;
}

let server: RealServer;
let org: Org;
let experimentId: string;
let site: Server;
let profile: string;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = await new RealServer().start();
  org = await server.newOrg();
  experimentId = (
    await createExperiment(org, {
      name: 'web-copy',
      bucket_count: 10_000,
      allocation: [
        { variant: 'control', weight: 45 },
        { variant: 'treatment', weight: 45 },
      ],
      variants: [
        { key: 'control', variables: { tone: 'plain', size: 1 } },
        { key: 'treatment', variables: { tone: 'bold', size: 2 } },
      ],
    })
  ).id;
  await createExperiment(org, { name: 'web-draft', status: 'draft' });
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./support/page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  const script = bundle.outputFiles[0]?.text ?? '';
  // The page comes from another origin than the API, as on a real site.
  site = createServer((req, res) => {
    if (req.url === '/page.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    }
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  profile = mkdtempSync(join(tmpdir(), 'arbiter-openfeature-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
  await page.waitForFunction(() => (window as unknown as PageWindow).loaded === true);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => site?.close(r));
  if (profile) rmSync(profile, { recursive: true, force: true });
  await server?.dispose();
});

/** The provider set in the page on a client of the real server. */
async function setProvider(apiKey: string, baseUrl: string): Promise<void> {
  await page.evaluate(
    async ({ apiKey, baseUrl }) => {
      const w = window as unknown as PageWindow;
      w.seen = [];
      const client = new w.Arbiter({ apiKey, baseUrl, pollIntervalMs: 200, maxAttempts: 1 });
      for (const event of [
        w.ProviderEvents.Ready,
        w.ProviderEvents.ConfigurationChanged,
        w.ProviderEvents.Error,
      ]) {
        w.OpenFeature.addHandler(event, () => w.seen.push(event));
      }
      await w.OpenFeature.setContext({ targetingKey: 'nobody' });
      await w.OpenFeature.setProviderAndWait(new w.ArbiterWebProvider(client)).catch(() => {});
    },
    { apiKey, baseUrl },
  );
}

describe('the web provider through @openfeature/web-sdk in Chromium', () => {
  it('gives 10,000 users the variant the client assigns; every error code in its case', async () => {
    await setProvider(org.publishable, server.url);
    const users = Array.from({ length: 10_000 }, (_, i) => `web-user-${i}`);
    const answers = await page.evaluate(async (users) => {
      const w = window as unknown as PageWindow;
      const flags = w.OpenFeature.getClient();
      const out: (string | null)[] = [];
      for (const user of users) {
        await w.OpenFeature.setContext({ targetingKey: user, plan: 'pro' });
        const d = flags.getStringDetails('web-copy', 'none');
        out.push(d.reason === 'SPLIT' ? (d.variant ?? 'no variant') : null);
      }
      return out;
    }, users);
    const reference = new NodeArbiter({
      apiKey: org.publishable,
      baseUrl: server.url,
      trackExposures: false,
    });
    await reference.ready();
    expect(answers).toEqual(users.map((u) => reference.assign('web-copy', u)));
    await reference.close();

    const enrolled = users[answers.indexOf('treatment')] as string;
    const details = await page.evaluate(async (user) => {
      const w = window as unknown as PageWindow;
      const flags = w.OpenFeature.getClient();
      await w.OpenFeature.setContext({ targetingKey: user });
      const object = flags.getObjectDetails('web-copy', {});
      const size = flags.getNumberValue('web-copy:size', 0);
      const codes = [
        flags.getStringDetails('no-such', 'd').errorCode,
        flags.getBooleanDetails('web-copy', false).errorCode,
        flags.getNumberDetails('web-copy:tone', 0).errorCode,
      ];
      const draft = flags.getStringDetails('web-draft', 'd').reason;
      await w.OpenFeature.setContext({});
      codes.push(flags.getStringDetails('web-copy', 'd').errorCode);
      return { object, size, codes, draft };
    }, enrolled);
    expect(details.object).toMatchObject({
      value: { tone: 'bold', size: 2 },
      variant: 'treatment',
      reason: 'SPLIT',
      flagMetadata: { experimentId },
    });
    expect(details.size).toBe(2);
    expect(details.codes).toEqual([
      'FLAG_NOT_FOUND',
      'TYPE_MISMATCH',
      'TYPE_MISMATCH',
      'TARGETING_KEY_MISSING',
    ]);
    expect(details.draft).toBe('DISABLED');

    // CONFIGURATION_CHANGED after a PUT, then track and the flush at close.
    const put = await org.session.call(
      'PUT',
      `/v1/experiments/${experimentId}`,
      experimentConfig({
        name: 'web-copy',
        bucket_count: 10_000,
        allocation: [
          { variant: 'control', weight: 40 },
          { variant: 'treatment', weight: 40 },
        ],
        variants: [
          { key: 'control', variables: { tone: 'plain', size: 1 } },
          { key: 'treatment', variables: { tone: 'bold', size: 2 } },
        ],
      }),
    );
    expect(put.status).toBe(200);
    await waitFor(
      () =>
        page.evaluate(() =>
          (window as unknown as PageWindow).seen.includes('PROVIDER_CONFIGURATION_CHANGED'),
        ),
      'CONFIGURATION_CHANGED in the page',
    );
    await page.evaluate(async (user) => {
      const w = window as unknown as PageWindow;
      await w.OpenFeature.setContext({ targetingKey: user });
      w.OpenFeature.getClient().track('signup', { value: 3, experiment: 'web-copy' });
      await w.OpenFeature.close();
    }, enrolled);
    const day = new Date().toISOString().slice(0, 10);
    const res = await fetch(`${server.url}/v1/events/export?experiment=web-copy&day=${day}`, {
      headers: { 'x-api-key': org.secret },
    });
    const events = (await res.text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    const business = events.filter((e) => e.type === 'business_event');
    expect(business).toEqual([
      expect.objectContaining({ user_id: enrolled, business_metric: 'signup', value: 3 }),
    ]);
    expect(events.filter((e) => e.type === 'exposure' && e.user_id === enrolled)).toHaveLength(1);
  });

  it('answers PROVIDER_NOT_READY and emits ERROR when the server cannot be reached', async () => {
    const result = await page.evaluate(async () => {
      const w = window as unknown as PageWindow;
      const client = new w.Arbiter({
        apiKey: 'svc_pk_unreachable',
        baseUrl: 'http://127.0.0.1:9',
        maxAttempts: 1,
      });
      const provider = new w.ArbiterWebProvider(client);
      const direct = provider.resolveStringEvaluation('web-copy', 'd', { targetingKey: 'u' });
      const errored = new Promise<boolean>((resolve) =>
        w.OpenFeature.addHandler(w.ProviderEvents.Error, () => resolve(true)),
      );
      w.OpenFeature.setProvider(provider);
      return { code: direct.errorCode, errored: await errored };
    });
    expect(result).toEqual({ code: 'PROVIDER_NOT_READY', errored: true });
  });

  it('emits STALE when the server goes away after READY, and keeps serving the cached values', async () => {
    await setProvider(org.publishable, server.url);
    const users = Array.from({ length: 100 }, (_, i) => `stale-user-${i}`);
    const evaluate = (users: string[]) =>
      page.evaluate(async (users) => {
        const w = window as unknown as PageWindow;
        const flags = w.OpenFeature.getClient();
        const out: Array<{ value: string; reason?: string; errorCode?: string }> = [];
        for (const user of users) {
          await w.OpenFeature.setContext({ targetingKey: user });
          const { value, reason, errorCode } = flags.getStringDetails('web-copy', 'none');
          out.push({ value, reason, ...(errorCode === undefined ? {} : { errorCode }) });
        }
        return out;
      }, users);
    // Its own list: the handlers of the earlier tests push into `seen`.
    await page.evaluate(() => {
      const w = window as unknown as PageWindow & { after: string[] };
      w.after = [];
      for (const event of [w.ProviderEvents.Stale, w.ProviderEvents.Error]) {
        w.OpenFeature.addHandler(event, (details) =>
          w.after.push(`${event} ${details?.message ?? ''}`),
        );
      }
    });
    const before = await evaluate(users);
    expect(before.some((d) => d.reason === 'SPLIT')).toBe(true);
    const after = () =>
      page.evaluate(() => (window as unknown as PageWindow & { after: string[] }).after);
    expect(await after()).toEqual([]);

    await server.stop();
    try {
      await waitFor(async () => (await after()).length > 0, 'STALE in the page');
      // A config is loaded: STALE, not ERROR, and every user still gets the cached answer.
      expect(await after()).toEqual([
        'PROVIDER_STALE the Arbiter API cannot be reached: the last config keeps serving',
      ]);
      expect(await evaluate(users)).toEqual(before);
    } finally {
      await server.start();
    }
  });
});

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { axeViolations, launch, screenshot, watchConsole } from './support/browser.ts';
import {
  type Api,
  armEvents,
  createCheckoutCopy,
  createExperiment,
  ingest,
  metric,
  newOrg,
  runPipeline,
  secretKey,
  seedAnalysedOrg,
  signIn,
  waitForExposures,
} from './support/seed.ts';
import { serveEmbedded, type TestServer } from './support/server.ts';

/**
 * The first day's rough edges, each checked in Chromium against the real server on PGlite
 * (no billing configured, so no plan limits): a member's pages log nothing, an arm keeps its
 * colour, axes are round, an unknown address says so, the frozen fields read as text.
 */
const today = new Date().toISOString().slice(0, 10);
let server: TestServer;
let browser: Browser;
let page: Page;
let consoleWatch: ReturnType<typeof watchConsole>;

const heading = (name: string) => page.getByRole('heading', { name, level: 1 });

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

/**
 * An org with `arm-order`, whose variants are listed control, zeta, alpha (not alphabetical, so
 * no chart's own order can agree with it by chance), analysed for today.
 */
async function armOrderOrg(): Promise<{ org: string; api: Api; id: string }> {
  const { org, api } = await newOrg(server.url, 'polish');
  const key = await secretKey(api);
  const arms = { control: 33.3, zeta: 33.3, alpha: 33.3 };
  const id = await createExperiment(api, 'arm-order', arms, [
    metric('latency', 'latency', 'welch_t'),
  ]);
  await ingest(
    server.url,
    key,
    armEvents(id, { control: 230, zeta: 230, alpha: 230 }, { zeta: -60 }),
  );
  await waitForExposures(api, id, 690);
  runPipeline(server.dataDir, today);
  return { org, api, id };
}

/** Each arm's colour in the legends of the histograms of `metric` on the page. */
async function legendColours(metric: string): Promise<Record<string, string>> {
  const figures = page.locator('figure.distribution').filter({
    has: page.getByRole('img', { name: new RegExp(`^Histogram of ${metric}`) }),
  });
  await figures.locator('.recharts-legend-item').first().waitFor();
  const perFigure = await figures.evaluateAll((fs) =>
    fs.flatMap((f) =>
      Array.from(f.querySelectorAll('.recharts-legend-item')).map((item) => {
        const icon = item.querySelector('.recharts-legend-icon');
        const arm = item.querySelector('.recharts-legend-item-text')?.textContent ?? '';
        return [arm, icon?.getAttribute('fill') ?? icon?.getAttribute('stroke') ?? ''] as const;
      }),
    ),
  );
  const out: Record<string, string> = {};
  for (const [arm, colour] of perFigure) {
    // One arm in two charts (control beside each treatment) keeps one colour.
    expect(out[arm] ?? colour, arm).toBe(colour);
    out[arm] = colour;
  }
  return out;
}

/** The tick labels of every axis of one kind inside `scope`, as shown. */
async function tickLabels(scope: string, axis: 'x' | 'y'): Promise<string[][]> {
  const root = page.locator(scope).first();
  const labels = `.recharts-${axis}Axis-tick-labels`;
  await root.locator(`${labels} text`).first().waitFor();
  return root.evaluate(
    (el, selector) =>
      Array.from(el.querySelectorAll(selector)).map((group) =>
        Array.from(group.querySelectorAll('text')).map((t) => t.textContent ?? ''),
      ),
    labels,
  );
}

/** Round (1, 2 or 5 times a power of ten) and evenly spaced, every step kept. */
function expectRoundTicks(labels: string[]) {
  for (const l of labels) expect(l, 'no exponent').not.toMatch(/e[+-]/i);
  const values = labels.map((l) => Number(l.replace(/,/g, '').replace('\u2212', '-')));
  expect(values.length, labels.join(' ')).toBeGreaterThanOrEqual(3);
  const step = (values[1] as number) - (values[0] as number);
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  expect([1, 2, 5], `step ${step} of ${labels.join(' ')}`).toContain(Number(mantissa.toFixed(6)));
  values.forEach((v, i) => {
    expect(v, labels.join(' ')).toBeCloseTo((values[0] as number) + i * step, 9);
    expect(Math.abs(v / step - Math.round(v / step)), `${v} is a multiple of ${step}`).toBeLessThan(
      1e-9,
    );
  });
}

beforeAll(async () => {
  server = await serveEmbedded();
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

beforeEach(async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  consoleWatch = watchConsole(page);
});

afterEach(async () => {
  await page.context().close();
  expect(consoleWatch.errors).toEqual([]);
});

describe('the dashboard’s rough edges, in Chromium', () => {
  it('logs no console error on any page for an ordinary member, and shows no owner navigation', async () => {
    const { org, ids } = await seedAnalysedOrg(server.url, server.dataDir, today);
    await signIn(page, server.url, { email: 'mo@example.com', org, role: 'member' });
    const pages: Array<[string, () => Promise<void>]> = [
      ['/experiments', () => heading('Experiments').waitFor()],
      [`/experiments/${ids.results}/results`, () => page.getByTestId('forest-latency').waitFor()],
      [
        `/experiments/${ids.collecting}/results`,
        () => page.getByRole('heading', { name: 'Collecting' }).waitFor(),
      ],
      [`/experiments/${ids.results}/live`, () => page.getByText('Live view').waitFor()],
      [
        `/experiments/${ids.results}/traffic`,
        () => page.getByRole('img', { name: /Exposures per day/ }).waitFor(),
      ],
      [
        `/experiments/${ids.collecting}/versions`,
        () => page.getByText('Versions, newest first').waitFor(),
      ],
      [
        `/experiments/${ids.collecting}/edit`,
        () => page.getByText('Bucket map after saving').waitFor(),
      ],
      ['/keys', () => heading('Keys').waitFor()],
      ['/usage', () => heading('Usage').waitFor()],
      ['/billing', () => page.getByTestId('not-configured').waitFor()],
      ['/audit', () => heading('Audit log').waitFor()],
      ['/feedback', () => heading('Feedback').waitFor()],
    ];
    for (const [path, ready] of pages) {
      await page.goto(`${server.url}${path}`);
      await ready();
      await page.waitForLoadState('networkidle');
    }
    expect(consoleWatch.errors).toEqual([]);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Inbox' }).count()).resolves.toBe(0);
  });

  it('shows an owner the owner navigation from whoami, without asking the inbox', async () => {
    const owned = await serveEmbedded({ ARBITER_PLATFORM_OWNER_EMAILS: 'boss@example.com' });
    try {
      const inboxAsked: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === '/v1/admin/inbox') inboxAsked.push(r.url());
      });
      await signIn(page, owned.url, { email: 'boss@example.com', org: 'staff', role: 'admin' });
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Inbox' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(inboxAsked).toEqual([]);
    } finally {
      await owned.stop();
    }
  });

  it('gives an arm the same colour on Results and Live, in the experiment’s order', async () => {
    const { org, id } = await armOrderOrg();
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page.goto(`${server.url}/experiments/${id}/results`);
    const onResults = await legendColours('latency');
    await check('arm-colours-results');
    await page.getByRole('link', { name: 'Live' }).click();
    const onLive = await legendColours('latency');
    await check('arm-colours-live');
    expect(Object.keys(onResults).sort()).toEqual(['alpha', 'control', 'zeta']);
    expect(onLive).toEqual(onResults);
    expect(new Set(Object.values(onLive)).size).toBe(3);
    // Live's one chart lists the arms in the experiment's order.
    expect(Object.keys(onLive)).toEqual(['control', 'zeta', 'alpha']);
    await page.getByRole('link', { name: 'Traffic' }).click();
    await page.getByRole('img', { name: /Exposures per day/ }).waitFor();
    const traffic = await page.evaluate(() =>
      Object.fromEntries(
        Array.from(document.querySelectorAll('.recharts-legend-item')).map((item) => [
          item.querySelector('.recharts-legend-item-text')?.textContent ?? '',
          item.querySelector('.recharts-legend-icon')?.getAttribute('stroke') ??
            item.querySelector('.recharts-legend-icon')?.getAttribute('fill'),
        ]),
      ),
    );
    expect(traffic).toEqual(onResults);
  });

  it('draws round, evenly spaced axis ticks with readable numbers', async () => {
    const { org, id } = await armOrderOrg();
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page.goto(`${server.url}/experiments/${id}/results`);
    await page.getByTestId('forest-latency').waitFor();
    const forest = await tickLabels('[data-testid="forest-latency"]', 'x');
    expectRoundTicks(forest[0] ?? []);
    const histogram = await tickLabels('figure.distribution', 'y');
    expectRoundTicks(histogram[0] ?? []);
    // Bin labels of latency (hundreds of ms) in plain decimals.
    const bins = (await tickLabels('figure.distribution', 'x'))[0] ?? [];
    for (const b of bins) expect(b).not.toMatch(/e[+-]/i);
    await page.getByRole('link', { name: 'Traffic' }).click();
    const traffic = await tickLabels('figure', 'y');
    expectRoundTicks(traffic[0] ?? []);
    expect(traffic[0]?.[0]).toBe('0');
    await check('axes');
  });

  it('shows a "No such page" view for an unknown address, signed in', async () => {
    const { org, api } = await newOrg(server.url, 'polish');
    const id = await createCheckoutCopy(api);
    await signIn(page, server.url, { email: 'mo@example.com', org, role: 'member' });
    for (const path of ['/admin/nowhere', `/experiments/${id}/nowhere`, '/experiments/a/b/c']) {
      await page.goto(`${server.url}${path}`);
      await heading('No such page').waitFor();
      await expect(page.getByText(path, { exact: true }).count()).resolves.toBe(1);
      await page.getByRole('link', { name: 'Go to the experiments' }).waitFor();
    }
    await check('no-such-page');
    await page.getByRole('link', { name: 'Go to the experiments' }).click();
    await heading('Experiments').waitFor();
  });

  it('names the last run of an experiment the pipeline found still collecting', async () => {
    const { org, api } = await newOrg(server.url, 'polish');
    const key = await secretKey(api);
    const id = await createExperiment(api, 'still-collecting', { control: 50, treatment: 50 }, [
      metric('latency', 'latency', 'welch_t'),
    ]);
    await ingest(server.url, key, armEvents(id, { control: 3, treatment: 3 }, {}));
    await waitForExposures(api, id, 6);
    runPipeline(server.dataDir, today);
    // Created after the run, so no run has looked at it yet.
    await createExperiment(api, 'never-run', { control: 50, treatment: 50 }, [
      metric('latency', 'latency', 'welch_t'),
    ]);
    await signIn(page, server.url, { email: 'mo@example.com', org, role: 'member' });
    await page.goto(`${server.url}/experiments`);
    const row = (name: string) => page.getByRole('row').filter({ hasText: name });
    await row('still-collecting').getByText(`${today} · still collecting`).waitFor();
    await expect(row('never-run').locator('td').nth(2).textContent()).resolves.toBe('—');
  });

  it('says what applies on Usage and Billing: no limits without billing, the setting that changes it', async () => {
    const { org } = await newOrg(server.url, 'polish');
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page.goto(`${server.url}/usage`);
    const limits = page.getByTestId('limits');
    await expect(limits.textContent()).resolves.toContain(
      'Plan limits are not enforced on this server',
    );
    await expect(limits.textContent()).resolves.toContain('ARBITER_ENFORCE_LIMITS=true');
    await expect(page.getByTestId('meter-Judge evaluations').textContent()).resolves.toBe(
      'Not on the Free plan.',
    );
    await expect(page.getByTestId('meter-Events').textContent()).resolves.toBe(
      '0 of 50,000 included',
    );
    await check('usage-not-enforced');
    await page.goto(`${server.url}/billing`);
    await page.getByTestId('not-configured').waitFor();
    await expect(page.getByTestId('limits').textContent()).resolves.toContain(
      'ARBITER_ENFORCE_LIMITS=true',
    );
    await check('billing-not-enforced');
  });

  it('shows frozen salt and bucket count as text, one version without a comparison, textareas whole', async () => {
    const { org, api } = await newOrg(server.url, 'polish');
    const id = await createCheckoutCopy(api);
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page.goto(`${server.url}/experiments/${id}/versions`);
    await page.getByTestId('one-version').waitFor();
    await expect(page.getByText(/No differences/).count()).resolves.toBe(0);
    await expect(page.getByRole('heading', { name: 'Compare versions' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByText('Bucket map after saving').waitFor();
    await expect(page.getByLabel('Salt').count()).resolves.toBe(0);
    await expect(page.getByLabel('Bucket count').count()).resolves.toBe(0);
    await page.getByText('checkout-copy-salt').waitFor();
    const prompt = page.getByLabel('Prompt of control');
    await prompt.fill(['one', 'two', 'three', 'four', 'five', 'six'].join('\n'));
    const cut = await prompt.evaluate((t) => t.scrollHeight - t.clientHeight);
    expect(cut, 'hidden pixels of the prompt').toBeLessThanOrEqual(0);
    await check('editor-frozen');
  });

  it('fills the development sign-in in from the demo’s link', async () => {
    await page.goto(
      `${server.url}/experiments?email=demo%40example.com&org=arbiter-demo&role=admin`,
    );
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('demo@example.com');
    await expect(page.getByLabel('Organization').inputValue()).resolves.toBe('arbiter-demo');
    await expect(page.getByLabel('Role').inputValue()).resolves.toBe('admin');
    await check('sign-in-linked');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Experiments').waitFor();
    await page.getByText('demo@example.com · admin').waitFor();
  });
});

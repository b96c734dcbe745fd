import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Results } from '../src/api/client.ts';
import { runCsv } from '../src/pages/results/export-run.ts';
import { armValue, effectValue, pValue } from '../src/pages/results/format.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { type BrowserPage, browserTestFrame } from './support/browser-page.ts';
import {
  type Api,
  armEvents,
  call,
  createCheckoutCopy,
  createExperiment,
  dayOfEvents,
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
let server: TestServer;
let page: Page;
let consoleWatch: BrowserPage['consoleWatch'];

const heading = (name: string) => page.getByRole('heading', { name, level: 1 });

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

/**
 * An org with `arm-order`, whose variants are listed control, zeta, alpha (not alphabetical, so
 * no chart's own order can agree with it by chance), analysed for the day of its events.
 */
async function armOrderOrg(): Promise<{ org: string; api: Api; id: string }> {
  const { org, api } = await newOrg(server.url, 'polish');
  const key = await secretKey(api);
  const arms = { control: 33.3, zeta: 33.3, alpha: 33.3 };
  const id = await createExperiment(api, 'arm-order', arms, [
    metric('latency', 'latency', 'welch_t'),
  ]);
  const events = armEvents(id, { control: 230, zeta: 230, alpha: 230 }, { zeta: -60 });
  await ingest(server.url, key, events);
  await waitForExposures(api, id, 690);
  runPipeline(server.dataDir, dayOfEvents(events));
  return { org, api, id };
}

/**
 * Each arm's colour in the legends of the histograms of `metric` on the page, read once
 * `charts` figures show `arms` distinct arms between them: Recharts draws a legend after it
 * measures, so one chart can be drawn while its neighbour is not yet.
 */
async function legendColours(
  metric: string,
  charts: number,
  arms = 3,
): Promise<Record<string, string>> {
  const figures = page.locator('figure.distribution').filter({
    has: page.getByRole('img', { name: new RegExp(`^Histogram of ${metric}`) }),
  });
  let perFigure: (readonly [string, string])[] = [];
  await expect
    .poll(
      async () => {
        perFigure = await figures.evaluateAll((fs) =>
          fs.flatMap((f) =>
            Array.from(f.querySelectorAll('.recharts-legend-item')).map((item) => {
              const icon = item.querySelector('.recharts-legend-icon');
              const arm = item.querySelector('.recharts-legend-item-text')?.textContent ?? '';
              return [
                arm,
                icon?.getAttribute('fill') ?? icon?.getAttribute('stroke') ?? '',
              ] as const;
            }),
          ),
        );
        return [await figures.count(), new Set(perFigure.map(([arm]) => arm)).size];
      },
      { timeout: 15_000 },
    )
    .toEqual([charts, arms]);
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

const ui = browserTestFrame();
beforeAll(() => {
  ({ server } = ui);
});
beforeEach(() => {
  ({ page, consoleWatch } = ui);
});

/**
 * An org with `by-model`: a mean latency, a p95 latency and a cost-per-conversion ratio,
 * declaring the `model` dimension; its calls go to two models (one user in three on gpt-b),
 * a user in four converts; analysed for the day of its events.
 */
async function byModelOrg(): Promise<{ org: string; api: Api; id: string }> {
  const { org, api } = await newOrg(server.url, 'polish');
  const key = await secretKey(api);
  const metrics = [
    metric('latency', 'latency', 'welch_t'),
    { ...metric('p95', 'latency', 'welch_t'), quantile: 0.95 },
    {
      ...metric('cpc', 'ratio', 'welch_t'),
      direction: 'decrease',
      numerator: { of: 'cost' },
      denominator: { business_metric: 'conversion', of: 'count' },
    },
  ];
  const body = {
    name: 'by-model',
    salt: 'by-model-salt',
    bucket_count: 999,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ],
    metrics,
    dimensions: ['model'],
  };
  const id = (await call(api, 'POST', '/v1/experiments', body)).id as string;
  let n = 0;
  const events = armEvents(id, { control: 240, treatment: 240 }, { treatment: -40 }).flatMap(
    (e) => {
      const event = e as Record<string, unknown>;
      if (event.type !== 'model_call') return [event];
      n++;
      const call = { ...event, model: n % 3 === 0 ? 'gpt-b' : 'gpt-a' };
      if (n % 4 !== 0) return [call];
      const conversion: Record<string, unknown> = {
        ...event,
        event_id: `c-${String(event.event_id)}`,
        type: 'business_event',
        business_metric: 'conversion',
        value: 1,
      };
      for (const k of ['latency_ms', 'input_tokens', 'output_tokens', 'cost_usd', 'model'])
        delete conversion[k];
      return [call, conversion];
    },
  );
  await ingest(server.url, key, events);
  await waitForExposures(api, id, 480);
  runPipeline(server.dataDir, dayOfEvents(events));
  return { org, api, id };
}

const squash = (s: string | null) => (s ?? '').replace(/\s+/g, ' ').trim();

describe('the dashboard’s rough edges, in Chromium', () => {
  it('logs no console error on any page for an ordinary member, and shows no owner navigation', async () => {
    const { org, ids } = await seedAnalysedOrg(server.url, server.dataDir);
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
    const onResults = await legendColours('latency', 2);
    await check('arm-colours-results');
    await page.getByRole('link', { name: 'Live' }).click();
    await page.waitForURL(/\/live$/);
    const onLive = await legendColours('latency', 1);
    await check('arm-colours-live');
    expect(Object.keys(onResults).sort()).toEqual(['alpha', 'control', 'zeta']);
    expect(onLive).toEqual(onResults);
    expect(new Set(Object.values(onLive)).size).toBe(3);
    // Live's one chart lists the arms in the experiment's order.
    expect(Object.keys(onLive)).toEqual(['control', 'zeta', 'alpha']);
    await page.getByRole('link', { name: 'Traffic' }).click();
    await page.getByRole('img', { name: /Exposures per day/ }).waitFor();
    let traffic: Record<string, string | null | undefined> = {};
    await expect
      .poll(async () => {
        traffic = await page.evaluate(() =>
          Object.fromEntries(
            Array.from(document.querySelectorAll('.recharts-legend-item')).map((item) => [
              item.querySelector('.recharts-legend-item-text')?.textContent ?? '',
              item.querySelector('.recharts-legend-icon')?.getAttribute('stroke') ??
                item.querySelector('.recharts-legend-icon')?.getAttribute('fill'),
            ]),
          ),
        );
        return Object.keys(traffic).length;
      })
      .toBe(3);
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

  it('names quantile and ratio metrics, and splits the results by model as the server does', async () => {
    const { org, api, id } = await byModelOrg();
    const served = (await call(
      api,
      'GET',
      `/v1/experiments/${id}/results?dimension=model`,
    )) as Results;
    const breakdown = served.breakdown;
    expect(breakdown?.slices.map((s) => s.value)).toEqual(['gpt-a', 'gpt-b']);
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page.goto(`${server.url}/experiments/${id}/results`);
    await page.getByTestId('title-p95').waitFor();
    expect(squash(await page.getByTestId('title-p95').textContent())).toMatch(
      /^p95 latency \(p95,/,
    );
    expect(squash(await page.getByTestId('title-cpc').textContent())).toMatch(
      /^cost per conversion \(cpc,/,
    );
    expect(squash(await page.getByTestId('title-latency').textContent())).toMatch(/^latency \(/);
    await expect(page.getByTestId('slice-gpt-a').count()).resolves.toBe(0);

    await page.getByRole('combobox', { name: 'Split by' }).selectOption('model');
    await page.getByTestId('exploratory-note').waitFor();
    expect(squash(await page.getByTestId('exploratory-note').textContent())).toContain(
      'raw p-values',
    );
    for (const slice of breakdown?.slices ?? []) {
      const box = page.getByTestId(`slice-${slice.value}`);
      expect(squash(await box.getByRole('heading').textContent())).toBe(
        `model = ${slice.value} exploratory`,
      );
      expect(squash(await box.getByTestId('slice-summary').textContent())).toContain(
        `${slice.users} users · per arm: control ${slice.arms.control?.users}, treatment ${slice.arms.treatment?.users}`,
      );
      const results = Object.values(slice.results);
      expect(results).toHaveLength(3);
      for (const r of results) {
        const row = box.getByTestId(`slice-row-${r.metric}-${r.treatment}`);
        const cell = async (name: string) => squash(await row.getByTestId(name).textContent());
        for (const [testid, arm] of [
          ['control-value', r.control],
          ['treatment-value', r.treatment],
        ] as const)
          expect(await cell(testid)).toBe(
            `${armValue(r.kind, r.mean_per_arm[arm])} (n = ${r.n_per_arm[arm]})`,
          );
        expect(r.ok).toBe(true);
        expect(await cell('p')).toBe(pValue(r.p_value));
        expect(await cell('effect')).toBe(
          `${effectValue(r.kind, r.effect)} (${effectValue(r.kind, r.ci_low)} to ${effectValue(r.kind, r.ci_high)})`,
        );
      }
      expect(
        squash(
          await box.getByTestId('slice-row-cpc-treatment').getByRole('rowheader').textContent(),
        ),
      ).toBe('cost per conversion');
    }
    await check('split-by-model');

    // The CSV export follows "Split by": the run's rows, then one per metric × treatment × slice.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV (split by model)' }).click();
    const text = readFileSync((await download.then((d) => d.path())) as string, 'utf8');
    const lines = text.split('\r\n').slice(1, -1);
    const own = Object.keys(served.results).length;
    const sliceRows = lines.slice(own);
    expect(sliceRows).toHaveLength(
      (breakdown?.slices ?? []).reduce((n, s) => n + Object.keys(s.results).length, 0),
    );
    for (const line of lines.slice(0, own)) expect(line.endsWith(',,,false')).toBe(true);
    for (const slice of breakdown?.slices ?? [])
      for (const r of Object.values(slice.results))
        expect(
          sliceRows
            .filter((l) =>
              l.startsWith(`${served.computed_for},${r.metric},${r.treatment},${r.control},`),
            )
            .filter((l) => l.endsWith(`,model,${slice.value},true`)),
        ).toHaveLength(1);
    expect(text).toBe(runCsv(served, breakdown));
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
    const events = armEvents(id, { control: 3, treatment: 3 }, {});
    await ingest(server.url, key, events);
    await waitForExposures(api, id, 6);
    const day = dayOfEvents(events);
    runPipeline(server.dataDir, day);
    // Created after the run, so no run has looked at it yet.
    await createExperiment(api, 'never-run', { control: 50, treatment: 50 }, [
      metric('latency', 'latency', 'welch_t'),
    ]);
    await signIn(page, server.url, { email: 'mo@example.com', org, role: 'member' });
    await page.goto(`${server.url}/experiments`);
    const row = (name: string) => page.getByRole('row').filter({ hasText: name });
    await row('still-collecting').getByText(`${day} · still collecting`).waitFor();
    // Last run: the fourth column, after name, status and last verdict.
    await expect(row('never-run').locator('td').nth(3).textContent()).resolves.toBe('—');
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

import type { Locator, Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Comparison, OfflineRun, RunItemsPage } from '../src/api/client.ts';
import { differenceValue, meanValue, share } from '../src/pages/offline/scorer-units.ts';
import { pValue } from '../src/pages/results/format.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { browserTestFrame } from './support/browser-page.ts';
import { call, newOrg, signIn } from './support/seed.ts';
import { itemId, outputOf, seedOfflineOrg, uploadText } from './support/seed-offline.ts';
import type { TestServer } from './support/server.ts';

/**
 * The offline-evaluation pages in Chromium against the real server on PGlite: the experiment's Offline
 * tab, a completed run's page (comparisons, gates, non-determinism, the item viewer) and the
 * datasets page with its uploads. Everything shown is made through the HTTP API in the same
 * test, and every number the page must show is read from the server's own answer, then
 * formatted as the page formats it.
 */
let server: TestServer;
let page: Page;

const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\s+/g, ' ').trim();

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

const signInAs = (org: string) =>
  signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });

const ui = browserTestFrame();
beforeAll(() => {
  ({ server } = ui);
});
beforeEach(() => {
  ({ page } = ui);
});

describe('the Offline tab', () => {
  it("lists the experiment's runs newest first, with status, dataset, results and gates", async () => {
    const seeded = await seedOfflineOrg(server.url);
    const listed: OfflineRun[] = await call(
      seeded.api,
      'GET',
      `/v1/experiments/${seeded.experimentId}/offline-runs`,
    );
    expect(listed.map((r) => r.id)).toEqual([seeded.runningRunId, seeded.completeRunId]);
    await signInAs(seeded.org);
    await page.goto(`${server.url}/experiments/${seeded.experimentId}/versions`);
    await page
      .getByRole('navigation', { name: 'Experiment' })
      .getByRole('link', { name: 'Offline' })
      .click();
    await page.waitForURL(`**/experiments/${seeded.experimentId}/offline`);
    const rows = page.getByRole('region', { name: 'Offline runs' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(
      await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-testid'))),
    ).toEqual(listed.map((r) => `run-${r.id}`));
    const complete = page.getByTestId(`run-${seeded.completeRunId}`);
    expect(await text(complete.getByTestId('status'))).toBe('complete');
    expect(await text(complete.getByTestId('results'))).toBe('143 of 144');
    expect(await text(complete.getByTestId('gates'))).toBe('failed: terse');
    await expect(complete.getByRole('link', { name: 'faq' }).getAttribute('href')).resolves.toBe(
      `/datasets/${seeded.datasetId}`,
    );
    const running = page.getByTestId(`run-${seeded.runningRunId}`);
    expect(await text(running.getByTestId('status'))).toBe('running');
    expect(await text(running.getByTestId('results'))).toBe('6 of 48');
    expect(await text(running.getByTestId('gates'))).toBe('—');
    await check('offline-tab');

    // An experiment without a run says how runs are made.
    const other = await call(seeded.api, 'POST', '/v1/experiments', {
      name: 'no-runs',
      salt: 'no-runs-salt',
      bucket_count: 999,
      allocation: [{ variant: 'control', weight: 100 }],
      metrics: [],
    });
    await page.goto(`${server.url}/experiments/${other.id}/offline`);
    await page.getByText('No offline runs yet.').waitFor();
  });
});

describe("an offline run's page", () => {
  const comparisonRow = (c: Comparison) =>
    page.getByTestId(`comparison-${c.scorer}-${c.treatment}`);

  it('shows each comparison, the gates and the non-determinism as the run computed them', async () => {
    const seeded = await seedOfflineOrg(server.url);
    const run: OfflineRun = await call(
      seeded.api,
      'GET',
      `/v1/offline-runs/${seeded.completeRunId}`,
    );
    expect(run.status).toBe('complete');
    await signInAs(seeded.org);
    await page.goto(`${server.url}/experiments/${seeded.experimentId}/offline`);
    await page.getByTestId(`run-${run.id}`).getByRole('link').first().click();
    await page.waitForURL(`**/experiments/${seeded.experimentId}/offline/${run.id}`);
    await page.getByRole('heading', { name: 'Comparisons' }).waitFor();

    expect(await text(page.getByTestId('coverage'))).toContain(
      '143 of 144 results · 1 failed · 1 missing',
    );
    expect(await text(page.getByTestId('pinned'))).toBe(
      'Dataset faq version 2 (24 items) · experiment version 1 · baseline control · 2 repeats · nightly prompt check',
    );

    // The gates: terse broke exact's margin and is worse; polished passed.
    const gates = run.gates as NonNullable<OfflineRun['gates']>;
    expect(gates.terse?.passed).toBe(false);
    expect(gates.polished?.passed).toBe(true);
    const terseGate = page.getByTestId('gate-terse');
    expect(await text(terseGate.locator('strong'))).toBe('terse: gate failed');
    expect(await terseGate.locator('li').allTextContents()).toEqual(gates.terse?.reasons);
    expect(await text(page.getByTestId('gate-polished').locator('strong'))).toBe(
      'polished: gate passed',
    );

    // Every comparison of the run has its row, with the server's numbers and words.
    const comparisons = Object.values(run.comparisons ?? {});
    expect(comparisons.map((c) => `${c.scorer}::${c.treatment}`)).toEqual(
      expect.arrayContaining(['exact::terse', 'exact::polished', 'latency_ms::terse']),
    );
    expect(await page.locator('table.comparisons tbody tr').count()).toBe(comparisons.length);
    const kindOf = (name: string) => run.scorers.find((s) => s.name === name)?.kind;
    for (const c of comparisons) {
      const row = comparisonRow(c);
      const kind = kindOf(c.scorer);
      expect(await text(row.getByTestId('n-items')), c.scorer).toBe(String(c.n_items));
      expect(await text(row.getByTestId('mean-baseline'))).toBe(meanValue(kind, c.mean_baseline));
      expect(await text(row.getByTestId('mean-treatment'))).toBe(meanValue(kind, c.mean_treatment));
      expect(await text(row.getByTestId('difference'))).toContain(
        `${differenceValue(kind, c.mean_difference)} (${differenceValue(kind, c.ci_low)} to ${differenceValue(kind, c.ci_high)})`,
      );
      expect(await text(row.getByTestId('p-fdr'))).toBe(pValue(c.p_value_fdr as number));
      const outcome = { better: 'better (significant)', worse: 'worse (significant)' };
      expect(await text(row.getByTestId('outcome'))).toContain(
        c.outcome === 'inconclusive' ? 'inconclusive' : outcome[c.outcome],
      );
      expect(await text(row.getByTestId('improved'))).toBe(String(c.improved_items));
      expect(await text(row.getByTestId('regressed'))).toBe(String(c.regressed_items));
      expect(await text(row.getByTestId('tied'))).toBe(String(c.tied_items));
      await expect(row.getByTestId('ci-bar').getAttribute('aria-label')).resolves.toContain(
        c.outcome,
      );
    }
    // The data were made so: exact is worse for terse (red) and better for polished (green).
    const exactTerse = run.comparisons?.['exact::terse'] as Comparison;
    const exactPolished = run.comparisons?.['exact::polished'] as Comparison;
    expect([exactTerse.outcome, exactPolished.outcome]).toEqual(['worse', 'better']);
    const barFill = (c: Comparison) =>
      comparisonRow(c).getByTestId('ci-bar').locator('rect').first().getAttribute('fill');
    await expect(barFill(exactTerse)).resolves.toBe('#b91c1c');
    await expect(barFill(exactPolished)).resolves.toBe('#15803d');
    expect(await text(comparisonRow(exactTerse).getByTestId('non-inferiority'))).toBe(
      'not shown non-inferior (margin 5 pts)',
    );
    expect(await text(comparisonRow(exactPolished).getByTestId('non-inferiority'))).toBe(
      'non-inferior (margin 5 pts)',
    );
    expect(
      await text(
        comparisonRow(run.comparisons?.['similarity::terse'] as Comparison).getByTestId(
          'non-inferiority',
        ),
      ),
    ).toBe('no margin');

    // Non-determinism: terse flips on q10 and q11 among the 23 items with two exact values.
    const summary = run.summary?.['exact::terse'];
    expect(summary?.flip_rate).toBeCloseTo(2 / 23, 12);
    const nd = page.getByTestId('summary-exact-terse');
    expect(await text(nd.getByTestId('flip-rate'))).toBe(share(summary?.flip_rate));
    expect(await text(nd.getByTestId('flip-rate'))).toBe('8.7%');
    expect(await text(nd.getByTestId('pass-all'))).toBe(share(summary?.pass_all));
    expect(await text(nd.getByTestId('unstable'))).toBe('q10, q11');
    expect(await text(page.getByTestId('summary-exact-control').getByTestId('unstable'))).toBe(
      'none',
    );
    await check('offline-run');
  });

  it('pages through the items, worst regression first, outputs side by side', async () => {
    const seeded = await seedOfflineOrg(server.url);
    const runId = seeded.completeRunId;
    const items = (query: string): Promise<RunItemsPage> =>
      call(seeded.api, 'GET', `/v1/offline-runs/${runId}/items?limit=10${query}`);
    const first = await items('');
    const second = await items(`&starting_after=${first.data.at(-1)?.id}`);
    expect(first.sort).toBe('regressions');
    expect(first.treatment).toBe('terse');
    expect(first.data[0]?.difference).toBe(-1);
    await signInAs(seeded.org);
    await page.goto(`${server.url}/experiments/${seeded.experimentId}/offline/${runId}`);
    const cards = page.getByTestId('run-item');
    await expect.poll(() => cards.count()).toBe(10);
    const shownIds = () => cards.locator('h4 code').allTextContents();
    expect(await shownIds()).toEqual(first.data.map((i) => i.id));

    // The worst regression: control right on both repeats, terse wrong on both.
    const worst = cards.first();
    const worstItem = first.data[0] as RunItemsPage['data'][number];
    const i = Number(worstItem.id.slice(1));
    expect(await text(worst.getByTestId('input'))).toBe(`question ${i}`);
    expect(await text(worst.getByTestId('expected'))).toBe(`answer ${i}`);
    expect(await text(worst.getByTestId('item-difference'))).toBe(
      'regressed −100 pts (terse vs control on exact)',
    );
    for (const variant of ['control', 'terse', 'polished'])
      for (const repeat of [0, 1])
        expect(await text(worst.getByTestId(`output-${variant}-${repeat}`))).toContain(
          outputOf(variant, i, repeat),
        );
    await check('offline-items');

    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(shownIds).toEqual(second.data.map((x) => x.id));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(shownIds).toEqual(first.data.map((x) => x.id));

    // By id, q05 is on the first page with terse's failed repeat shown as its error.
    await page.getByLabel('Sort').selectOption('item');
    await expect.poll(shownIds).toEqual(Array.from({ length: 10 }, (_, k) => itemId(k)));
    expect(page.url()).toContain('sort=item');
    const q05 = cards.filter({ has: page.locator('h4 code', { hasText: 'q05' }) });
    expect(await text(q05.getByTestId('output-terse-1'))).toContain('Error: timeout');
    // Polished's q23 repeat 1 never arrived.
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('button', { name: 'Next page' }).click();
    const q23 = cards.filter({ has: page.locator('h4 code', { hasText: 'q23' }) });
    expect(await text(q23.getByTestId('output-polished-1'))).toBe('missing');
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
  });
});

describe('the datasets page', () => {
  const CSV = [
    'id,input,expected_output,group,var.tone',
    'a1,"What is',
    'Arbiter?",An experimentation platform,faq,calm',
    'a2,,missing input,faq,calm',
    'a3,Refunds?,Within 30 days,billing,',
  ].join('\n');
  const JSONL = [
    '{"id":"a3","input":"Refunds?","expected_output":"Within 14 days"}',
    '{"id":"a4"}',
    '{"id":"a5","input":"Opening hours?"}',
  ].join('\n');

  async function uploadFile(name: string, mimeType: string, body: string) {
    await page.getByLabel('CSV or JSONL file').setInputFiles({
      name,
      mimeType,
      buffer: Buffer.from(body),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
  }

  const errorRows = () =>
    page
      .getByTestId('row-errors')
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => ({
          line: Number(tr.querySelector('th')?.textContent),
          detail: tr.querySelector('td')?.textContent ?? '',
        })),
      );

  it('creates a dataset, uploads CSV and JSONL and shows each bad row by its line', async () => {
    const { org, api } = await newOrg(server.url, 'datasets');
    // The same files sent by a CI job to a twin dataset: the page must show the same answers.
    const twin = await call(api, 'POST', '/v1/datasets', { name: 'twin' });
    const csvAnswer = await uploadText(api, twin.id, 'text/csv', CSV);
    const jsonlAnswer = await uploadText(api, twin.id, 'application/x-ndjson', JSONL);
    expect(csvAnswer.errors.map((e) => e.line)).toEqual([4]);
    expect(jsonlAnswer.errors.map((e) => e.line)).toEqual([2]);

    await signInAs(org);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Datasets' })
      .click();
    await page.getByRole('heading', { name: 'Datasets', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('support-faq');
    await page.getByLabel('Description').fill('Support questions');
    await page.getByRole('button', { name: 'Create dataset' }).click();
    await page.getByRole('heading', { name: 'support-faq', level: 1 }).waitFor();
    await page.getByText('No items yet').waitFor();

    await uploadFile('items.csv', 'text/csv', CSV);
    await expect
      .poll(() => text(page.getByTestId('upload-summary')))
      .toBe('Stored 2 items: version 2. 1 row was skipped.');
    expect(await errorRows()).toEqual(
      csvAnswer.errors.map(({ line, detail }) => ({ line, detail })),
    );
    await expect.poll(() => text(page.getByTestId('dataset-version'))).toBe('version 2 · 2 items');
    const itemRows = page.getByTestId('dataset-item');
    await expect.poll(() => itemRows.locator('th').allTextContents()).toEqual(['a1', 'a3']);
    const cells = (row: number) =>
      itemRows
        .nth(row)
        .locator('th, td')
        .allTextContents()
        .then((all) => all.map((c) => c.replace(/\s+/g, ' ')));
    expect(await cells(0)).toEqual([
      'a1',
      'What is Arbiter?',
      'An experimentation platform',
      'faq',
      '{"tone":"calm"}',
      '—',
    ]);
    await check('dataset-csv-upload');

    await uploadFile('more.jsonl', 'application/x-ndjson', JSONL);
    await expect
      .poll(() => text(page.getByTestId('upload-summary')))
      .toBe('Stored 2 items: version 3. 1 row was skipped.');
    expect(await errorRows()).toEqual(
      jsonlAnswer.errors.map(({ line, detail }) => ({ line, detail })),
    );
    // a3 was replaced by the JSONL row.
    await expect.poll(() => itemRows.locator('th').allTextContents()).toEqual(['a1', 'a3', 'a5']);
    expect((await cells(1))[2]).toBe('Within 14 days');
    await check('dataset-jsonl-upload');
  });

  it('lists the datasets and pages through items as the server orders them', async () => {
    const { org, api } = await newOrg(server.url, 'datasets');
    const ds = await call(api, 'POST', '/v1/datasets', { name: 'big', description: 'Sixty items' });
    const items = Array.from({ length: 60 }, (_, i) => ({
      id: `p${String(i).padStart(2, '0')}`,
      input: `q ${i}`,
    }));
    await call(api, 'POST', `/v1/datasets/${ds.id}/items`, { items });
    const first = await call(api, 'GET', `/v1/datasets/${ds.id}/items?limit=50`);
    const second = await call(
      api,
      'GET',
      `/v1/datasets/${ds.id}/items?limit=50&starting_after=${first.data.at(-1).id}`,
    );
    await signInAs(org);
    await page.goto(`${server.url}/datasets`);
    const row = page.getByTestId('dataset-big');
    await row.waitFor();
    expect(await text(row.getByTestId('version'))).toBe('2');
    expect(await text(row.getByTestId('item-count'))).toBe('60');
    await check('datasets');

    await row.getByRole('link', { name: 'big' }).click();
    const ids = () => page.getByTestId('dataset-item').locator('th').allTextContents();
    await expect.poll(ids).toEqual(first.data.map((i: { id: string }) => i.id));
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(ids).toEqual(second.data.map((i: { id: string }) => i.id));
    expect(second.has_more).toBe(false);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await check('dataset-items-page-2');
  });
});

describe('at 390 px wide', () => {
  it('shows the Offline tab, a run and the datasets without overflow or axe violations', async () => {
    const seeded = await seedOfflineOrg(server.url);
    await signInAs(seeded.org);
    await page.setViewportSize({ width: 390, height: 844 });
    const pages: Array<[string, string, () => Promise<void>]> = [
      [
        'offline-tab',
        `/experiments/${seeded.experimentId}/offline`,
        () => page.getByTestId(`run-${seeded.completeRunId}`).waitFor(),
      ],
      [
        'offline-run',
        `/experiments/${seeded.experimentId}/offline/${seeded.completeRunId}`,
        () => page.getByTestId('run-item').first().waitFor(),
      ],
      [
        'offline-running-run',
        `/experiments/${seeded.experimentId}/offline/${seeded.runningRunId}`,
        () => page.getByTestId('progress').waitFor(),
      ],
      ['datasets', '/datasets', () => page.getByTestId('dataset-faq').waitFor()],
      [
        'dataset',
        `/datasets/${seeded.datasetId}`,
        () => page.getByTestId('dataset-item').first().waitFor(),
      ],
    ];
    for (const [name, path, ready] of pages) {
      await page.goto(`${server.url}${path}`);
      await ready();
      await check(`${name}-390`);
      // Nothing wider than the screen except inside a scrollable region.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(overflow, name).toBeLessThanOrEqual(390);
    }
    expect(await text(page.getByTestId('dataset-version'))).toBe('version 2 · 24 items');
  });
});

import type { Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Layer, Results } from '../src/api/client.ts';
import { bucketRange, layerSegments, segmentOwner } from '../src/pages/layers/layer-segments.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { type BrowserPage, browserTestFrame } from './support/browser-page.ts';
import {
  type Api,
  armEvents,
  call,
  dayOfEvents,
  ingest,
  metric,
  newOrg,
  runPipeline,
  secretKey,
  signIn,
} from './support/seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * Layers and holdouts in Chromium against the real server on PGlite: a layer made with the
 * form, two experiments in it (one through the editor), its bucket map read against the API,
 * and a holdout made, grown (a shrink refused beside the field) and shown with its nightly
 * results. axe finds nothing serious on any of the new pages.
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

const ui = browserTestFrame();
beforeAll(() => {
  ({ server } = ui);
});
beforeEach(() => {
  ({ page, consoleWatch } = ui);
});

/** The bucket map's table as shown: owner and range of each row. */
async function shownRuns(): Promise<string[][]> {
  const rows = page.getByTestId('layer-runs').locator('tbody tr');
  await rows.first().waitFor();
  return rows.evaluateAll((trs) =>
    trs.map((tr) => [
      tr.querySelector('th')?.textContent?.trim() ?? '',
      tr.querySelector('[data-testid="range"]')?.textContent ?? '',
    ]),
  );
}

/**
 * The holdout's users, folded by the ingest worker, then `arbiter pipeline run`: the run is
 * repeated until it has seen every user, since no route counts a holdout's exposures live.
 */
async function analysedHoldout(
  api: Api,
  id: string,
  users: { holdout: number; general: number },
  day: string,
) {
  for (;;) {
    runPipeline(server.dataDir, day);
    const res = await fetch(`${api.base}/v1/holdouts/${id}/results`, {
      headers: { authorization: `Bearer ${api.token}` },
    });
    if (res.ok) {
      const run = (await res.json()) as Results;
      if (run.arms.holdout?.users === users.holdout && run.arms.general?.users === users.general)
        return run;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('layers and holdouts', () => {
  it('creates a layer, puts two experiments in it and draws who owns which buckets', async () => {
    const { org, api } = await newOrg(server.url, 'layers');
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Layers' })
      .click();
    await heading('Layers').waitFor();
    await page.getByText('No layers yet.').waitFor();
    await check('layers-empty');

    const form = page.getByRole('form', { name: 'New layer' });
    await form.getByLabel('Name').fill('chat');
    await form.getByLabel('Bucket count').fill('1000');
    await form.getByLabel('Salt').fill('chat-layer-salt');
    await form.getByRole('button', { name: 'Create layer' }).click();
    await heading('chat').waitFor();
    expect(page.url()).toBe(`${server.url}/layers/chat`);
    // Frozen fields read as text, not inputs.
    await expect(page.locator('dl.frozen code').textContent()).resolves.toBe('chat-layer-salt');
    expect(await page.getByRole('textbox').count()).toBe(0);
    expect(await shownRuns()).toEqual([['free', '0–999']]);

    // One experiment through the API, then one through the editor, choosing the layer.
    await call(api, 'POST', '/v1/experiments', {
      name: 'chat-length',
      salt: 'chat-length-salt',
      bucket_count: 100,
      allocation: [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      metrics: [metric('latency', 'latency', 'welch_t')],
      layer: 'chat',
      layer_weight: 50,
    });
    await page.goto(`${server.url}/experiments/new`);
    await heading('New experiment').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('chat-tone');
    const layerSelect = page.getByRole('combobox', { name: /^Layer\b/ });
    // The layers arrive after the form: wait for the one the API made before reading the list.
    await layerSelect.locator('option', { hasText: 'chat' }).waitFor({ state: 'attached' });
    await expect(layerSelect.locator('option').allTextContents()).resolves.toEqual([
      'None: every user may enter',
      'chat (50.00% free)',
    ]);
    await layerSelect.selectOption('chat');
    await page.getByLabel('Layer weight (%)').fill('30');
    await check('editor-layer');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.waitForURL(/\/experiments\/[^/]+\/results$/);
    await expect(page.getByTestId('experiment-layer').textContent()).resolves.toBe(
      'layer: chat, 30%',
    );
    const tone = await call(api, 'GET', '/v1/experiments/chat-tone');
    expect(tone).toMatchObject({ layer: 'chat', layer_weight: 30 });

    await page.getByTestId('experiment-layer').getByRole('link', { name: 'chat' }).click();
    await heading('chat').waitFor();
    const layer = (await call(api, 'GET', '/v1/layers/chat')) as Layer;
    const expected = layerSegments(layer.bucket_map, layer.bucket_count).map((s) => [
      segmentOwner(s),
      bucketRange(s),
    ]);
    // What the server handed out, lowest never-used buckets first, and the rest free.
    expect(expected).toEqual([
      ['chat-length', '0–499'],
      ['chat-tone', '500–799'],
      ['free', '800–999'],
    ]);
    await expect.poll(shownRuns).toEqual(expected);
    const bar = page.getByRole('img', { name: /^Buckets 0–999 of layer chat/ });
    await expect(bar.getAttribute('aria-label')).resolves.toBe(
      'Buckets 0–999 of layer chat: chat-length 0–499, chat-tone 500–799, free 800–999',
    );
    await expect(page.getByTestId('free-buckets').textContent()).resolves.toBe('200 free');
    await check('layer-bucket-map');

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Layers' })
      .click();
    const row = page.getByTestId('layer-chat');
    await expect(row.getByTestId('owned').textContent()).resolves.toBe('800');
    await expect(row.getByTestId('free').textContent()).resolves.toBe('200');
    await check('layers-list');
  });

  it('creates a holdout, refuses a shrink beside the field, grows it and shows its results', async () => {
    const { org, api } = await newOrg(server.url, 'holdouts');
    const key = await secretKey(api);
    for (const name of ['summary-tone', 'reply-length'])
      await call(api, 'POST', '/v1/experiments', {
        name,
        salt: `${name}-salt`,
        bucket_count: 100,
        allocation: [
          { variant: 'control', weight: 50 },
          { variant: 'treatment', weight: 50 },
        ],
        metrics: [metric('latency', 'latency', 'welch_t')],
      });
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Holdouts' })
      .click();
    await heading('Holdouts').waitFor();
    await page.getByText('No holdouts yet.').waitFor();
    await check('holdouts-empty');

    const form = page.getByRole('form', { name: 'New holdout' });
    await form.getByLabel('Name', { exact: true }).fill('q4');
    await form.getByLabel('Bucket count').fill('1000');
    await form.getByLabel('Percent held out').fill('10');
    await form.getByLabel('Only these').check();
    await form
      .getByLabel('Experiments held out')
      .selectOption([{ label: 'summary-tone' }, { label: 'reply-length' }]);
    await form.getByRole('button', { name: 'Add metric' }).click();
    await form.getByLabel('Metric name').fill('latency');
    await check('holdout-create');
    await form.getByRole('button', { name: 'Create holdout' }).click();
    await heading('q4').waitFor();
    const id = page.url().split('/').pop() as string;
    const created = await call(api, 'GET', `/v1/holdouts/${id}`);
    expect(created).toMatchObject({ name: 'q4', percent: 10, bucket_count: 1000 });
    expect(created.metrics.map((m: { name: string }) => m.name)).toEqual(['latency']);
    const ids = [
      (await call(api, 'GET', '/v1/experiments/summary-tone')).id,
      (await call(api, 'GET', '/v1/experiments/reply-length')).id,
    ];
    expect([...created.experiments].sort()).toEqual([...ids].sort());
    await expect(page.getByTestId('holdout-experiments').textContent()).resolves.toMatch(
      /^(summary-tone, reply-length|reply-length, summary-tone)$/,
    );
    await expect(page.getByTestId('held-out-buckets').textContent()).resolves.toBe('0–99');
    await page
      .getByTestId('no-results')
      .getByText('No results yet: the nightly run computes them.')
      .waitFor();
    await check('holdout-collecting');

    // A smaller percent would send held-out users back into experiments: the server says no,
    // and its words stand beside the field.
    const change = page.getByRole('form', { name: 'Change holdout' });
    const percent = change.getByLabel('Percent held out');
    const refusal = await fetch(`${api.base}/v1/holdouts/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ percent: 5 }),
    });
    expect(refusal.status).toBe(400);
    const why = ((await refusal.json()) as { errors: Array<{ pointer: string; detail: string }> })
      .errors;
    expect(why.map((e) => e.pointer)).toEqual(['#/percent']);
    await percent.fill('5');
    await consoleWatch.expecting(400, async () => {
      await change.getByRole('button', { name: 'Save new version' }).click();
      await change.locator('.field-errors').waitFor();
    });
    await expect(change.locator('.field-errors li').allTextContents()).resolves.toEqual(
      why.map((e) => e.detail),
    );
    await expect(percent.getAttribute('aria-invalid')).resolves.toBe('true');
    await check('holdout-refused');

    await percent.fill('20');
    await change.getByRole('button', { name: 'Save new version' }).click();
    await expect
      .poll(() => page.getByTestId('holdout-line').textContent())
      .toBe('version 2 · 20% held out');
    await expect(page.getByTestId('held-out-buckets').textContent()).resolves.toBe('0–199');
    expect(await change.locator('.field-errors').count()).toBe(0);

    // Held-out and general users as clients report them (the holdout's id is the experiment
    // id of its exposures), 1 in 5 held out; general is 40 ms quicker.
    const events = armEvents(id, { holdout: 250, general: 1000 }, { general: -40 });
    await ingest(server.url, key, events);
    const run = await analysedHoldout(
      api,
      id,
      { holdout: 250, general: 1000 },
      dayOfEvents(events),
    );
    expect(run.srm.halted).toBe(false);
    const latency = run.results['latency::general'];
    expect(latency?.n_per_arm).toEqual({ holdout: 250, general: 1000 });
    expect(latency?.effect).toBeLessThan(0);

    await page.reload();
    await heading('q4').waitFor();
    await expect(page.getByTestId('holdout-run').textContent()).resolves.toContain(
      'users: held out 250, general 1000',
    );
    await page.getByTestId('srm-passed').waitFor();
    await page.getByRole('img', { name: /^Forest plot of latency/ }).waitFor();
    const row = page.getByTestId('row-latency-general');
    await expect(row.locator('th').textContent()).resolves.toBe('general');
    await expect(row.getByTestId('control-value').textContent()).resolves.toContain('(n = 250)');
    await check('holdout-results');
  });
});

import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CollectingEstimate } from '../src/pages/experiments/queries.ts';
import { axeViolations, screenshot, watchConsole } from './support/browser.ts';
import { type BrowserPage, browserTestFrame } from './support/browser-page.ts';
import {
  type AnalysedOrg,
  call,
  createCheckoutCopy,
  createExperiment,
  devToken,
  metric,
  newOrg,
  secretKey,
  seedAnalysedOrg,
  shrinkControl,
  signIn,
  uniqueOrg,
} from './support/seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * One server and one Chromium for the file; each test has its own org, seeded through the API,
 * and its own browser context (a fresh tab, its own session), so that any test passes alone
 * and the file passes in any order.
 */
let server: TestServer;
let browser: Browser;
let page: Page;
let consoleWatch: BrowserPage['consoleWatch'];

/** Every page visited: a screenshot and an axe-core check with no serious or critical issue. */
async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

const heading = (name: string) => page.getByRole('heading', { name, level: 1 });

/** Signs this test's tab in to the org as its admin. */
const signInAs = (org: string) =>
  signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });

/** An org with its nightly run done (see seedAnalysedOrg), and this test's tab signed in to it. */
async function analysedOrgSignedIn(): Promise<AnalysedOrg> {
  const seeded = await seedAnalysedOrg(server.url, server.dataDir);
  await signInAs(seeded.org);
  return seeded;
}

/** Every page of an analysed org, with what shows it has loaded. */
function everyPage(ids: AnalysedOrg['ids']): Array<[string, string, () => Promise<void>]> {
  return [
    ['experiments', '/experiments', () => heading('Experiments').waitFor()],
    ['experiment-create', '/experiments/new', () => heading('New experiment').waitFor()],
    [
      'experiment-edit',
      `/experiments/${ids.collecting}/edit`,
      () => page.getByText('Bucket map after saving').waitFor(),
    ],
    [
      'experiment-versions',
      `/experiments/${ids.collecting}/versions`,
      () => page.getByText('Versions, newest first').waitFor(),
    ],
    [
      'results-srm',
      `/experiments/${ids.srm}/results`,
      () => page.getByText('sample ratio mismatch').first().waitFor(),
    ],
    [
      'results-collecting',
      `/experiments/${ids.collecting}/results`,
      () => page.getByRole('heading', { name: 'Collecting' }).waitFor(),
    ],
    [
      'live',
      `/experiments/${ids.results}/live`,
      () => page.getByText('Live view — not for decisions.').waitFor(),
    ],
    [
      'traffic',
      `/experiments/${ids.results}/traffic`,
      () => page.getByRole('img', { name: /Exposures per day/ }).waitFor(),
    ],
    ['keys', '/keys', () => heading('Keys').waitFor()],
    ['usage', '/usage', () => heading('Usage').waitFor()],
    ['billing', '/billing', () => page.getByTestId('not-configured').waitFor()],
    ['audit', '/audit', () => heading('Audit log').waitFor()],
    ['feedback', '/feedback', () => heading('Feedback').waitFor()],
  ];
}

const ui = browserTestFrame();
beforeAll(() => {
  ({ server, browser } = ui);
});
beforeEach(() => {
  ({ page, consoleWatch } = ui);
});

describe('the dashboard in Chromium against the real server on PGlite', () => {
  it('signs in with the development form (Email, Organization, role)', async () => {
    const org = uniqueOrg('acme-e2e');
    await page.goto(`${server.url}/experiments`);
    await check('sign-in');
    await page.getByLabel('Email').fill('analyst@example.com');
    await page.getByLabel('Organization').fill(org);
    await page.getByLabel('Role').selectOption('admin');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Experiments').waitFor();
    await page.getByText('No experiments yet').waitFor();
    await check('experiments-empty');
    // The same org as `arbiter token --org <org>`: a token minted for it sees the same data.
    const api = { base: server.url, token: await devToken(server.url, org) };
    const me = await page.evaluate(async () => {
      const token = sessionStorage.getItem('arbiter.session');
      const res = await fetch('/v1/whoami', { headers: { authorization: `Bearer ${token}` } });
      return (await res.json()) as { org_id: string };
    });
    expect(me.org_id).toBe((await call(api, 'GET', '/v1/whoami')).org_id);
  });

  it('creates an experiment with variants, prompt, variables and a metric', async () => {
    const { org, api } = await newOrg(server.url, 'acme-e2e');
    await signInAs(org);
    await page.getByRole('link', { name: 'New experiment' }).click();
    await heading('New experiment').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('checkout-copy');
    await page.getByLabel('Prompt of control').fill('You are a helpful checkout assistant.');
    await page.getByLabel('Prompt of treatment').fill('You are a concise checkout assistant.');
    await page.getByLabel('Variables of treatment (JSON object)').fill('{"temperature": 0.2}');
    await page.getByRole('button', { name: 'Add metric' }).click();
    await page.getByLabel('Metric name').fill('latency');
    await expect(
      page
        .getByRole('img', { name: /Bucket map of version 1: control 0–4999, treatment 5000–9999/ })
        .count(),
    ).resolves.toBe(1);
    await check('experiment-create');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('heading', { name: 'Collecting' }).waitFor();
    const id = page.url().split('/')[4] ?? '';
    const stored = await call(api, 'GET', `/v1/experiments/${id}`);
    expect(stored.variants).toEqual([
      { key: 'control', prompt: 'You are a helpful checkout assistant.' },
      {
        key: 'treatment',
        prompt: 'You are a concise checkout assistant.',
        variables: { temperature: 0.2 },
      },
    ]);
    expect(stored.metrics.map((m: { name: string }) => m.name)).toEqual(['latency']);
  });

  it('edits it: previews what a change does, saves a version, shows the refusal of one that would move users', async () => {
    const { org, api } = await newOrg(server.url, 'acme-e2e');
    const id = await createCheckoutCopy(api);
    await signInAs(org);
    await page.goto(`${server.url}/experiments/${id}/results`);
    await page.getByRole('heading', { name: 'Collecting' }).waitFor();
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Weight of control (%)').fill('40');
    const preview = page.getByRole('status', { name: 'What this change does to enrolled users' });
    await expect.poll(() => preview.textContent()).toContain('1000 buckets retire');
    await check('experiment-edit');
    await page.getByRole('button', { name: 'Save new version' }).click();
    await page.getByRole('caption').filter({ hasText: 'Versions, newest first' }).waitFor();
    await expect
      .poll(() => page.getByLabel('Changes from v1 to v2').textContent())
      .toContain('allocation.0.weight');
    await check('experiment-versions');
    // Growing treatment needs never-used buckets; none remain, so the preview warns and the server refuses.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Weight of treatment (%)').fill('60');
    await page.getByText('This change would move users, so the server will refuse it.').waitFor();
    await consoleWatch.expecting(400, async () => {
      await page.getByRole('button', { name: 'Save new version' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'The allocation cannot be met without moving users' })
        .waitFor();
    });
    await check('experiment-edit-refused');
    expect((await call(api, 'GET', `/v1/experiments/${id}`)).version).toBe(2);
  });

  it('creates keys, rotates with a confirmation and reveals with a confirmation', async () => {
    const { org } = await newOrg(server.url, 'acme-e2e');
    await signInAs(org);
    await page.getByRole('link', { name: 'Keys' }).click();
    await heading('Keys').waitFor();
    const secret = page.getByRole('region', { name: 'secret key' });
    await secret.getByRole('button', { name: 'Create secret key' }).click();
    await secret.getByRole('button', { name: 'Yes, create' }).click();
    const first = (await secret.getByTestId('secret-key').textContent()) ?? '';
    expect(first).toMatch(/^svc_sk_/);
    await secret.getByRole('button', { name: 'Rotate secret key' }).click();
    await check('keys-rotate-confirm');
    await secret.getByRole('button', { name: 'Yes, rotate' }).click();
    await expect.poll(async () => secret.getByTestId('secret-key').textContent()).not.toBe(first);
    const rotated = (await secret.getByTestId('secret-key').textContent()) ?? '';
    expect(rotated).toMatch(/^svc_sk_/);
    await page.reload();
    await secret.getByRole('button', { name: 'Reveal' }).click();
    await secret.getByText('This is recorded in the audit log.').waitFor();
    await secret.getByRole('button', { name: 'Yes, reveal' }).click();
    await expect(secret.getByTestId('secret-key').textContent()).resolves.toBe(rotated);
    await check('keys');
    // The old key was invalidated by the rotation.
    const old = await fetch(`${server.url}/v1/config`, { headers: { 'x-api-key': first } });
    expect(old.status).toBe(401);
  });

  it('runs the pipeline on events sent through the ingest API', async () => {
    // The events of three experiments, ingested and folded, then `arbiter pipeline run`.
    const { pipeline, day } = await seedAnalysedOrg(server.url, server.dataDir);
    expect(pipeline).toContain(day);
  });

  it('lists experiments with their last verdict: ship, SRM halted, Collecting with progress', async () => {
    await analysedOrgSignedIn();
    await page.getByRole('link', { name: 'Experiments' }).click();
    const row = (name: string) => page.getByRole('row').filter({ hasText: name });
    await row('three-arms').getByText('Ship fast').waitFor();
    await row('broken-split').getByText('SRM halted').waitFor();
    await row('checkout-copy').getByText('30/200 per arm').waitFor();
    await check('experiments');
  });

  it('reads results: the significant metric on its FDR-adjusted p-value, the raw p beside it', async () => {
    const { ids, day } = await analysedOrgSignedIn();
    await page.goto(`${server.url}/experiments/${ids.results}/results`);
    await page.getByTestId('forest-latency').waitFor();
    await page.getByTestId('forest-tokens').waitFor();
    const fast = page.getByTestId('row-latency-fast');
    await expect(fast.textContent()).resolves.toContain('significant');
    await expect(fast.getByText('not significant').count()).resolves.toBe(0);
    const tokens = page.getByTestId('row-tokens-fast');
    await tokens.getByText('not significant').waitFor();
    // Per-arm distributions (each treatment's pair has its own bin edges here).
    await page
      .getByRole('img', { name: 'Histogram of latency (slim vs control) for control, slim' })
      .waitFor();
    await page.getByRole('columnheader', { name: 'FDR-adjusted p-value' }).first().waitFor();
    await page.getByRole('columnheader', { name: 'p-value', exact: true }).first().waitFor();
    await check('results');
    await page.setViewportSize({ width: 390, height: 844 });
    await check('results-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    // A deep link to the run, and the CSV export of the served run.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = await (await download).path();
    const text = readFileSync(csv, 'utf8');
    expect(text.split('\r\n')[0]).toContain('p_value_fdr');
    expect(text).toContain(`${day},latency,fast`);
  });

  it('overrides the test of one metric, from the next run on, audited', async () => {
    const { api, ids } = await analysedOrgSignedIn();
    await page.goto(`${server.url}/experiments/${ids.results}/results`);
    await page.getByRole('combobox', { name: /^Test for tokens/ }).selectOption('mann_whitney');
    await page.getByText('Overridden: mann_whitney, from the next run on.').waitFor();
    const audit = await call(api, 'GET', `/v1/audit?target_id=${ids.results}`);
    expect(audit[0]).toMatchObject({
      action: 'experiment.method_overridden',
      details: { metric: 'tokens', method: 'mann_whitney' },
    });
  });

  it('runs a preliminary analysis that the run picker lists beside the nightly day', async () => {
    const { api, ids, day } = await analysedOrgSignedIn();
    // Tokens' test overridden after the nightly run, as the dashboard's select does it.
    const tokens = `/v1/experiments/${ids.results}/metrics/tokens/method`;
    await call(api, 'PUT', tokens, { method: 'mann_whitney' });
    await page.goto(`${server.url}/experiments/${ids.results}/results`);
    await page.getByRole('button', { name: 'Run preliminary analysis' }).click();
    await expect.poll(() => page.url()).toContain('run=manual-');
    // A select inside its label takes the selected option into its accessible name.
    const picker = page.getByRole('combobox', { name: /^Run/ });
    await expect
      .poll(() => picker.locator('option').allTextContents())
      .toEqual(expect.arrayContaining([`Nightly ${day}`, expect.stringMatching(/^Preliminary /)]));
    await page.getByText('Preliminary (manual) run').waitFor();
    // The override applies to runs after it: the preliminary run used Mann-Whitney for tokens.
    const label = new URL(page.url()).searchParams.get('run') ?? '';
    const run = await call(
      api,
      'GET',
      `/v1/experiments/${ids.results}/results?day=${encodeURIComponent(label)}`,
    );
    expect(run.results['tokens::fast'].test).toBe('mann_whitney');
    await check('results-preliminary');
  });

  it('shows the SRM banner with observed vs expected and withholds the results', async () => {
    const { ids } = await analysedOrgSignedIn();
    await page.goto(`${server.url}/experiments/${ids.srm}/results`);
    const banner = page.getByRole('alert').filter({ hasText: 'sample ratio mismatch' });
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toContain('420');
    await expect(banner.textContent()).resolves.toContain('320');
    await expect(page.getByTestId('forest-latency').count()).resolves.toBe(0);
    await check('results-srm');
  });

  it('shows a collecting experiment as Collecting with per-arm progress, and its live view as not for decisions', async () => {
    const { ids } = await analysedOrgSignedIn();
    // The time to a decision is the collecting answer's own estimate, pair by pair: the page is
    // compared with the very answer it got (the estimate moves with the clock).
    const answered = page.waitForResponse((r) =>
      r.url().endsWith(`/v1/experiments/${ids.collecting}/results`),
    );
    await page.goto(`${server.url}/experiments/${ids.collecting}/results`);
    await page.getByRole('heading', { name: 'Collecting' }).waitFor();
    await page.getByText('Smallest arm: 30 of 200').waitFor();
    const answer = await answered;
    expect(answer.status()).toBe(404);
    const estimates = ((await answer.json()) as { primary_metrics: CollectingEstimate[] })
      .primary_metrics;
    const shown = estimates.filter((e) => e.users_needed_per_arm !== null);
    expect(shown.length).toBeGreaterThan(0);
    for (const e of shown) {
      const days =
        e.days_to_decision === null
          ? 'no user arrived in the last 7 days'
          : `about ${e.days_to_decision} more day${e.days_to_decision === 1 ? '' : 's'}`;
      const line = page.getByTestId(`estimate-${e.metric}-${e.treatment}`);
      await line.waitFor();
      await expect(line.textContent()).resolves.toContain(days);
      await expect(line.textContent()).resolves.toContain(
        `${e.users_needed_per_arm} users per arm`,
      );
    }
    await check('results-collecting');
    await page.getByRole('link', { name: 'Live' }).click();
    await page.getByText('Live view — not for decisions.').waitFor();
    await check('live');
    await page.getByRole('link', { name: 'Traffic' }).click();
    await page.getByRole('img', { name: /Exposures per day/ }).waitFor();
    await check('traffic');
  });

  it('sends test events until the hourly cap answers with its problem', async () => {
    const { org, api } = await newOrg(server.url, 'acme-e2e');
    const id = await createCheckoutCopy(api);
    await signInAs(org);
    await page.goto(`${server.url}/experiments/${id}/traffic`);
    const button = page.getByRole('button', { name: 'Send test event' });
    for (let i = 0; i < 5; i++) {
      // Each send answered before the next: the cap counts the sends the server has recorded.
      const sent = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().endsWith(`/${id}/test-event`),
      );
      await button.click();
      await sent;
      await page.getByText(/Test exposure sent as svc-test-/).waitFor();
    }
    await consoleWatch.expecting(429, async () => {
      await button.click();
      await page.getByRole('alert').filter({ hasText: /hour/i }).waitFor();
    });
    await check('test-event-cap');
  });

  it('shows usage, the audit log with its target filter, and takes feedback', async () => {
    const { org, api } = await newOrg(server.url, 'acme-e2e');
    await secretKey(api);
    await call(api, 'GET', '/v1/keys/secret/reveal');
    const collecting = await createCheckoutCopy(api);
    await shrinkControl(api, collecting);
    await signInAs(org);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('progressbar', { name: /Events:/ }).waitFor();
    await check('usage');
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('cell', { name: 'key.revealed' }).waitFor();
    await page.getByLabel('Target id').fill(collecting);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.url()).toContain(`target=${collecting}`);
    await page.getByRole('cell', { name: 'experiment.updated' }).waitFor();
    await expect(page.getByRole('cell', { name: 'key.revealed' }).count()).resolves.toBe(0);
    await check('audit');
    await page.getByRole('link', { name: 'Feedback' }).click();
    await page.getByLabel('Message').fill('The forest plot makes the decision obvious.');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    await page.getByRole('listitem').filter({ hasText: 'The forest plot makes' }).waitFor();
    await check('feedback');
  });

  it('shows billing as not configured where the server has no billing provider, and no owner navigation', async () => {
    const { org, api } = await newOrg(server.url, 'acme-e2e');
    await signInAs(org);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('link', { name: 'Change plan or manage billing' }).click();
    await heading('Billing').waitFor();
    await page.getByTestId('not-configured').waitFor();
    await expect(page.getByTestId('plan').textContent()).resolves.toBe('Free');
    await expect(page.getByRole('button', { name: /^Check out/ }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Open billing portal' }).count()).resolves.toBe(
      0,
    );
    await check('billing-not-configured');
    // No platform owners on this server: the inbox answers 403, so its navigation item stays hidden.
    const inbox = await fetch(`${server.url}/v1/admin/inbox`, {
      headers: { authorization: `Bearer ${api.token}` },
    });
    expect(inbox.status).toBe(403);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link').allTextContents()).resolves.toEqual([
      'Experiments',
      'Layers',
      'Holdouts',
      'Datasets',
      'Prompts',
      'Keys',
      'Webhooks',
      'Usage',
      'Billing',
      'Audit log',
      'Feedback',
    ]);
  });

  it('takes a session from the identity-provider hook (/auth/callback#token=…) in a new tab', async () => {
    const { org, api } = await newOrg(server.url, 'acme-e2e');
    const thirds = { control: 33.3, fast: 33.3, slim: 33.3 };
    await createExperiment(api, 'three-arms', thirds, [metric('latency', 'latency', 'welch_t')]);
    const context = await browser.newContext();
    const tab = await context.newPage();
    const tabConsole = watchConsole(tab);
    await tab.goto(
      `${server.url}/auth/callback#token=${await devToken(server.url, org, 'sso@example.com')}`,
    );
    await tab.getByRole('heading', { name: 'Experiments', level: 1 }).waitFor();
    await tab.getByText('sso@example.com · admin').waitFor();
    await tab.getByRole('link', { name: 'three-arms' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe('/experiments');
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.getByRole('heading', { name: 'Sign in to Arbiter' }).waitFor();
    expect(tabConsole.errors).toEqual([]);
    await context.close();
  });

  it('works at 390 px wide: every page, checked again', async () => {
    const { ids } = await analysedOrgSignedIn();
    await page.setViewportSize({ width: 390, height: 844 });
    const pages = everyPage(ids);
    for (const [name, path, ready] of pages) {
      await page.goto(`${server.url}${path}`);
      await ready();
      await check(`${name}-390`);
      // Nothing wider than the screen except inside a scrollable region.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(overflow, name).toBeLessThanOrEqual(390);
    }
  });

  it('logged no console error on any page', async () => {
    // Every test's own pages are checked after it (afterEach); this one visits them all.
    const { ids } = await analysedOrgSignedIn();
    for (const [, path, ready] of everyPage(ids)) {
      await page.goto(`${server.url}${path}`);
      await ready();
      await page.waitForLoadState('networkidle');
    }
    expect(consoleWatch.errors).toEqual([]);
  });
});

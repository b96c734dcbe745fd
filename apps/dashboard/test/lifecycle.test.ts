import type { Locator, Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Experiment, SummaryEntry } from '../src/api/client.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { type BrowserPage, browserTestFrame } from './support/browser-page.ts';
import {
  type Api,
  call,
  createExperiment,
  devToken,
  metric,
  newOrg,
  secretKey,
  signIn,
} from './support/seed.ts';
import { seedDecisionOrg } from './support/seed-decision.ts';
import type { TestServer } from './support/server.ts';

/**
 * The experiment lifecycle in Chromium against the real server: stopping and shipping from the
 * results page, the status badge and filter of the list, start, archive and unarchive behind
 * their confirmations, and a member's read-only view. What the page says is compared with what
 * the API answers in the same test, and what users get with the config the clients read.
 */
let server: TestServer;
let page: Page;
let consoleWatch: BrowserPage['consoleWatch'];

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

const text = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\s+/g, ' ').trim();
const row = (name: string) => page.getByRole('row').filter({ hasText: name });
const button = (name: string) => page.getByRole('button', { name, exact: true });
const getExperiment = (api: Api, id: string): Promise<Experiment> =>
  call(api, 'GET', `/v1/experiments/${id}`);

/** The config the clients poll, as a secret key reads it: the experiment's entry, if any. */
async function configEntry(key: string, name: string) {
  const res = await fetch(`${server.url}/v1/config`, { headers: { 'x-api-key': key } });
  const config = (await res.json()) as { experiments: Array<Record<string, unknown>> };
  return config.experiments.find((e) => e.name === name);
}

/** The same stop's line as the page words it, from the API's answer. */
function servingLine(stop: NonNullable<Experiment['stop']>, how: string): string {
  const at = `${stop.stopped_at.slice(0, 10)} ${stop.stopped_at.slice(11, 16)} UTC`;
  return `Every eligible user gets ${stop.served_variant} since ${at}: ${how} by ${stop.stopped_by}.`;
}

const ui = browserTestFrame();
beforeAll(() => {
  ({ server } = ui);
});
beforeEach(() => {
  ({ page, consoleWatch } = ui);
});

/** A draft made through the API, as a CI job would make one. */
async function createDraft(api: Api, name: string): Promise<string> {
  const allocation = [
    { variant: 'control', weight: 50 },
    { variant: 'treatment', weight: 50 },
  ];
  const body = { name, salt: `${name}-salt`, bucket_count: 999, allocation, status: 'draft' };
  return (await call(api, 'POST', '/v1/experiments', { ...body, metrics: [latency] })).id;
}
const latency = metric('latency', 'latency', 'welch_t');

describe('the experiment lifecycle, in Chromium against the real server', () => {
  it('stops and ships the recommended treatment from the results page', async () => {
    const seeded = await seedDecisionOrg(server.url, server.dataDir, ['ship']);
    const { api, ids } = seeded;
    await signIn(page, server.url, {
      email: 'analyst@example.com',
      org: seeded.org,
      role: 'admin',
    });
    const run = await call(api, 'GET', `/v1/experiments/${ids.ship}/results`);
    expect(run.decision.recommendation).toBe('ship');
    const shipped: string = run.decision.treatment;

    await page.goto(`${server.url}/experiments/${ids.ship}/results`);
    await page.getByTestId('verdict').waitFor();
    await expect(text(page.getByTestId('status'))).resolves.toBe('Running');
    await button('Stop').click();
    const dialog = page.getByRole('dialog', { name: 'Stop three-arms?' });
    await dialog.waitFor();
    // Ship is preselected with the treatment the last run recommends.
    await expect(dialog.getByRole('radio', { name: 'Ship a variant' }).isChecked()).resolves.toBe(
      true,
    );
    await expect(dialog.getByLabel('Variant to ship').inputValue()).resolves.toBe(shipped);
    const outcome = dialog.getByTestId('what-users-get');
    await expect(text(outcome)).resolves.toContain(`every eligible user gets ${shipped}`);
    await check('lifecycle-stop-dialog');
    // Nothing changes until the confirmation.
    expect((await getExperiment(api, ids.ship)).status).toBe('running');

    await dialog.getByLabel('Reason (optional)').fill(`${shipped} wins on checkout`);
    await dialog.getByRole('button', { name: `Yes, stop and serve ${shipped}` }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => text(page.getByTestId('status'))).toBe('Stopped');

    const stopped = await getExperiment(api, ids.ship);
    expect(stopped.status).toBe('stopped');
    expect(stopped.stop).toMatchObject({
      conclusion: 'ship',
      served_variant: shipped,
      reason: `${shipped} wins on checkout`,
    });
    if (stopped.stop === null) throw new Error('no stop');
    await expect(text(page.getByTestId('serving'))).resolves.toBe(
      servingLine(stopped.stop, `shipped ${shipped}`),
    );
    await expect(text(page.getByTestId('stop-reason'))).resolves.toBe(
      `Why: ${shipped} wins on checkout`,
    );
    // The one transition left is Archive; the results stay readable.
    await expect(button('Stop').count()).resolves.toBe(0);
    await button('Archive').waitFor();
    await page.getByTestId('verdict').waitFor();
    await check('lifecycle-stopped-results');

    // What the clients read: the experiment stopped, serving the shipped variant.
    await expect(configEntry(await secretKey(api), 'three-arms')).resolves.toMatchObject({
      status: 'stopped',
      served_variant: shipped,
    });
  });

  it('shows each experiment’s status and last verdict, and filters the list by status', async () => {
    const seeded = await seedDecisionOrg(server.url, server.dataDir, ['ship', 'undecided']);
    const { api, ids } = seeded;
    await createDraft(api, 'new-idea');
    const retired = await createDraft(api, 'retired-idea');
    await call(api, 'POST', `/v1/experiments/${retired}/archive`);
    const old = await createExperiment(api, 'old-copy', { control: 50, treatment: 50 }, [latency]);
    await call(api, 'POST', `/v1/experiments/${old}/stop`, { conclusion: 'rollback' });
    await signIn(page, server.url, {
      email: 'analyst@example.com',
      org: seeded.org,
      role: 'admin',
    });

    // The verdicts the API gives: ship fast, and keep collecting for the longest primary wait.
    const summary: SummaryEntry[] = await call(api, 'GET', '/v1/results/summary');
    const of = (id: string) => summary.find((s) => s.experiment_id === id);
    expect(of(ids.ship)?.decision).toMatchObject({ recommendation: 'ship', treatment: 'fast' });
    const undecided = of(ids.undecided);
    expect(undecided?.decision.recommendation).toBe('keep_collecting');
    const days = Object.values(undecided?.results ?? {})
      .filter((r) => r.category === 'primary')
      .map((r) => r.days_to_decision ?? 0);
    const wait = Math.max(...days);
    expect(wait).toBeGreaterThan(0);

    const rows = {
      'three-arms': ['Running', 'Ship fast'],
      'small-lift': ['Running', `Keep collecting, about ${wait} day${wait === 1 ? '' : 's'}`],
      'new-idea': ['Draft', 'not started'],
      'old-copy': ['Stopped', 'no results'],
    };
    await row('three-arms').getByText('Ship fast').waitFor();
    for (const [name, [status, verdict]] of Object.entries(rows)) {
      await expect(text(row(name).getByTestId('status'))).resolves.toBe(status);
      await expect(text(row(name))).resolves.toContain(verdict);
    }
    await expect(text(row('old-copy'))).resolves.toContain('serves control');
    // Archived experiments are hidden unless chosen.
    await expect(row('retired-idea').count()).resolves.toBe(0);
    await expect(page.getByRole('row').count()).resolves.toBe(5);
    await check('lifecycle-list');

    const filter = page.getByLabel('Status');
    await filter.selectOption('archived');
    await expect.poll(() => new URL(page.url()).search).toBe('?status=archived');
    await row('retired-idea').waitFor();
    await expect(text(row('retired-idea').getByTestId('status'))).resolves.toBe('Archived');
    await expect(page.getByRole('row').count()).resolves.toBe(2);
    await check('lifecycle-list-archived');

    await filter.selectOption('draft');
    await row('new-idea').waitFor();
    await expect(page.getByRole('row').count()).resolves.toBe(2);
    await filter.selectOption('draft,running,stopped,archived');
    await row('retired-idea').waitFor();
    await expect(page.getByRole('row').count()).resolves.toBe(6);
    // The filter is a link: the URL alone shows the same list.
    await page.goto(`${server.url}/experiments?status=stopped`);
    await row('old-copy').waitFor();
    await expect(page.getByRole('row').count()).resolves.toBe(2);
    await expect(filter.inputValue()).resolves.toBe('stopped');
  });

  it('starts, archives and unarchives, each after a confirmation that says what users get', async () => {
    const { org, api } = await newOrg(server.url, 'acme-life');
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    // A draft made with the form.
    await page.getByRole('link', { name: 'New experiment' }).click();
    await page.getByLabel('Name', { exact: true }).fill('new-idea');
    await page.getByRole('button', { name: 'Add metric' }).click();
    await page.getByLabel('Metric name').fill('latency');
    await page.getByRole('checkbox', { name: /Create as a draft/ }).check();
    await page.getByRole('button', { name: 'Create draft' }).click();
    await expect.poll(() => page.url()).toMatch(/\/experiments\/[^/]+\/results$/);
    const id = new URL(page.url()).pathname.split('/')[2] ?? '';
    await expect(text(page.getByTestId('status'))).resolves.toBe('Draft');
    expect((await getExperiment(api, id)).status).toBe('draft');
    await page.getByText('No results: a draft collects nothing until it is started.').waitFor();
    await expect(text(page.getByTestId('state-note'))).resolves.toContain(
      'Draft: assign returns null',
    );

    await button('Start').click();
    let dialog = page.getByRole('dialog', { name: 'Start new-idea?' });
    await expect(text(dialog.getByTestId('what-users-get'))).resolves.toContain(
      'split as allocated (control 50%, treatment 50%)',
    );
    await check('lifecycle-start-dialog');
    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await getExperiment(api, id)).status).toBe('draft');
    await button('Start').click();
    await dialog.getByRole('button', { name: 'Yes, start' }).click();
    await expect.poll(() => text(page.getByTestId('status'))).toBe('Running');
    expect((await getExperiment(api, id)).status).toBe('running');
    await expect(page.getByTestId('state-note').count()).resolves.toBe(0);

    // A stop made elsewhere meanwhile: the dialog shows the server's refusal and changes nothing.
    await call(api, 'POST', `/v1/experiments/${id}/stop`, {
      conclusion: 'inconclusive',
      reason: 'no signal',
    });
    await button('Stop').click();
    dialog = page.getByRole('dialog', { name: 'Stop new-idea?' });
    // No run recommends anything: nothing is chosen, and the confirmation waits for a choice.
    await expect(
      dialog.getByRole('button', { name: 'Stop', exact: true }).isDisabled(),
    ).resolves.toBe(true);
    await dialog.getByRole('radio', { name: 'Roll back to control' }).check();
    await expect(text(dialog.getByTestId('what-users-get'))).resolves.toContain(
      'every eligible user gets control',
    );
    await consoleWatch.expecting(409, async () => {
      await dialog.getByRole('button', { name: 'Yes, stop and serve control' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'Transition not allowed' }).waitFor();
    });
    const after = await getExperiment(api, id);
    expect(after.stop).toMatchObject({ conclusion: 'inconclusive', reason: 'no signal' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.reload();
    await expect(text(page.getByTestId('status'))).resolves.toBe('Stopped');
    await button('Archive').click();
    dialog = page.getByRole('dialog', { name: 'Archive new-idea?' });
    await expect(text(dialog.getByTestId('what-users-get'))).resolves.toContain(
      'Users stop getting control',
    );
    await dialog.getByRole('button', { name: 'Yes, archive' }).click();
    await expect.poll(() => text(page.getByTestId('status'))).toBe('Archived');
    await expect(text(page.getByTestId('state-note'))).resolves.toContain('Archived');
    await check('lifecycle-archived');
    const key = await secretKey(api);
    await expect(configEntry(key, 'new-idea')).resolves.toBeUndefined();

    await button('Unarchive').click();
    dialog = page.getByRole('dialog', { name: 'Unarchive new-idea?' });
    await expect(text(dialog.getByTestId('what-users-get'))).resolves.toContain('Back to stopped');
    await dialog.getByRole('button', { name: 'Yes, unarchive' }).click();
    await expect.poll(() => text(page.getByTestId('status'))).toBe('Stopped');
    await expect(configEntry(key, 'new-idea')).resolves.toMatchObject({
      status: 'stopped',
      served_variant: 'control',
    });
    if (after.stop === null) throw new Error('no stop');
    await expect(text(page.getByTestId('serving'))).resolves.toBe(
      servingLine(after.stop, 'stopped as inconclusive'),
    );
  });

  it('shows a member the state and what users get, with no button', async () => {
    const { org, api } = await newOrg(server.url, 'acme-life');
    const id = await createExperiment(api, 'checkout-copy', { control: 50, treatment: 50 }, [
      latency,
    ]);
    await call(api, 'POST', `/v1/experiments/${id}/stop`, {
      conclusion: 'ship',
      variant: 'treatment',
      reason: 'treatment converts better',
    });
    const running = await createExperiment(api, 'pricing', { control: 50, treatment: 50 }, [
      latency,
    ]);
    await signIn(page, server.url, { email: 'mo@example.com', org, role: 'member' });
    await expect(text(row('checkout-copy').getByTestId('status'))).resolves.toBe('Stopped');
    await check('lifecycle-member-list');

    await page.goto(`${server.url}/experiments/${id}/results`);
    await expect(text(page.getByTestId('status'))).resolves.toBe('Stopped');
    const stop = (await getExperiment(api, id)).stop;
    if (stop === null) throw new Error('no stop');
    await expect(text(page.getByTestId('serving'))).resolves.toBe(
      servingLine(stop, 'shipped treatment'),
    );
    await expect(text(page.getByTestId('stop-reason'))).resolves.toBe(
      'Why: treatment converts better',
    );
    await check('lifecycle-member-stopped');
    for (const target of [id, running]) {
      await page.goto(`${server.url}/experiments/${target}/results`);
      await page.getByTestId('status').waitFor();
      for (const name of ['Start', 'Stop', 'Archive', 'Unarchive'])
        await expect(button(name).count(), name).resolves.toBe(0);
    }
    // The server refuses the member too.
    const token = await devToken(server.url, org, 'mo@example.com', 'member');
    const res = await fetch(`${server.url}/v1/experiments/${running}/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ conclusion: 'rollback' }),
    });
    expect(res.status).toBe(403);
  });
});

import type { Locator, Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Experiment, Prompt } from '../src/api/client.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { browserTestFrame } from './support/browser-page.ts';
import { type Api, call, metric, newOrg, signIn } from './support/seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * The Prompts section in Chromium against the real server: the diff between two versions, a
 * label move behind its confirmation, and an experiment started from a version against
 * production, created with both prompt references. Each test seeds its own org through the API
 * and compares the page with what the API answers.
 */
let server: TestServer;
let page: Page;
const ui = browserTestFrame();
beforeAll(() => {
  ({ server } = ui);
});
beforeEach(() => {
  ({ page } = ui);
});

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

const lines = async (list: Locator, kind: 'added' | 'removed') =>
  (await list.locator(`li.${kind}`).allTextContents()).map((t) =>
    t.replace(/^(added|removed): [+−]/, ''),
  );

/**
 * `support-reply` with three versions (two texts, then a chat) and production on v1, made as an
 * application team would through the API.
 */
async function seedPrompt(api: Api): Promise<Prompt> {
  await call(api, 'POST', '/v1/prompts', { name: 'support-reply', description: 'Replies' });
  const add = (body: object) => call(api, 'POST', '/v1/prompts/support-reply/versions', body);
  await add({
    text: 'You are a support agent.\nAnswer {{question}}.',
    variables: ['question'],
    model_settings: { model: 'gpt-a', temperature: 0.2 },
    note: 'first',
  });
  await add({
    text: 'You are a concise support agent.\nAnswer {{question}}.\nSign as {{agent}}.',
    variables: ['question', 'agent'],
    model_settings: { model: 'gpt-a', temperature: 0.7 },
  });
  await add({
    messages: [
      { role: 'system', content: 'You are a concise support agent.' },
      { role: 'user', content: '{{question}}' },
    ],
    variables: ['question'],
    model_settings: { model: 'gpt-b' },
  });
  return call(api, 'PUT', '/v1/prompts/support-reply/labels/production', { version: 1 });
}

async function openPrompt(org: string) {
  await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Prompts' })
    .click();
  await page.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'support-reply' }).click();
  await page.getByRole('heading', { name: 'support-reply', level: 1 }).waitFor();
}

describe('the Prompts section, in Chromium against the real server', () => {
  it('diffs any two versions, template and settings, with the choice in the URL', async () => {
    const { org, api } = await newOrg(server.url, 'prompt-diff');
    await seedPrompt(api);
    await openPrompt(org);
    await expect(page.getByTestId('label-production').first().textContent()).resolves.toBe(
      'production → v1',
    );
    await page.getByLabel('From version').selectOption('1');
    await page.getByLabel('To version').selectOption('2');
    await page.waitForURL(/from=1&to=2/);
    const template = page.getByTestId('Template from v1 to v2');
    expect(await lines(template, 'removed')).toEqual(['You are a support agent.']);
    expect(await lines(template, 'added')).toEqual([
      'You are a concise support agent.',
      'Sign as {{agent}}.',
    ]);
    const settings = page.getByTestId('Variables and model settings from v1 to v2');
    expect(await lines(settings, 'removed')).toEqual(['    "temperature": 0.2', '    "question"']);
    expect(await lines(settings, 'added')).toEqual([
      '    "temperature": 0.7',
      '    "question",',
      '    "agent"',
    ]);
    await check('prompt-diff');
    // A chat version against a text one: each message is a [role] line and its content.
    await page.getByLabel('To version').selectOption('3');
    // The page re-renders from the URL after the choice: wait for the new comparison.
    const chat = page.getByTestId('Template from v1 to v3');
    await expect.poll(() => lines(chat, 'added')).toContain('[system]');
  });

  it('moves a label after a confirmation, and the history shows the move', async () => {
    const { org, api } = await newOrg(server.url, 'prompt-label');
    const seeded = await seedPrompt(api);
    await openPrompt(org);
    const form = page.getByRole('form', { name: 'Move a label' });
    await form.getByLabel('Label').fill('production');
    await form.getByLabel('Version').selectOption('2');
    await form.getByRole('button', { name: 'Move label' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move production of support-reply to v2?' });
    await expect(dialog.getByTestId('what-users-get').textContent()).resolves.toContain(
      'get v2 instead of v1',
    );
    await check('prompt-label-dialog');
    // Nothing has moved before the confirmation.
    expect((await call(api, 'GET', '/v1/prompts/support-reply')).labels).toEqual({ production: 1 });
    await dialog.getByRole('button', { name: 'Yes, point production at v2' }).click();
    await dialog.waitFor({ state: 'detached' });
    const after = (await call(api, 'GET', '/v1/prompts/support-reply')) as Prompt;
    expect(after.labels).toEqual({ production: 2 });
    const trail = await call(api, 'GET', `/v1/audit?target_id=${seeded.id}`);
    const moves = trail.filter((e: { action: string }) => e.action === 'prompt.label_moved');
    expect(moves.map((e: { details: object }) => e.details)).toMatchObject([
      { label: 'production', from: 1, to: 2 },
      { label: 'production', from: null, to: 1 },
    ]);
    const history = page.getByRole('region', { name: 'Label history' });
    await expect
      .poll(async () => (await history.getByRole('row').nth(1).textContent()) ?? '')
      .toContain('v1 → v2');
    await expect(history.getByRole('row').nth(1).textContent()).resolves.toContain(
      'analyst@example.com',
    );
    await expect(page.getByTestId('label-production').first().textContent()).resolves.toBe(
      'production → v2',
    );
    await check('prompt-label-moved');
  });

  it('starts an experiment from a version against production, both as references', async () => {
    const { org, api } = await newOrg(server.url, 'prompt-start');
    await seedPrompt(api);
    await openPrompt(org);
    await page
      .getByRole('link', { name: 'Start an experiment: v3 against production (v1)' })
      .click();
    await page.getByRole('heading', { name: 'New experiment', level: 1 }).waitFor();
    await expect(page.getByTestId('prompt-ref-control').textContent()).resolves.toContain(
      'support-reply version 1',
    );
    await expect(page.getByTestId('prompt-ref-treatment').textContent()).resolves.toContain(
      'support-reply version 3',
    );
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe(
      'support-reply v3 vs v1',
    );
    await check('prompt-experiment-editor');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.waitForURL(/\/experiments\/[^/]+\/results$/);
    const id = new URL(page.url()).pathname.split('/')[2] ?? '';
    const created = (await call(api, 'GET', `/v1/experiments/${id}`)) as Experiment;
    expect(created.variants).toEqual([
      { key: 'control', prompt: { name: 'support-reply', version: 1 } },
      { key: 'treatment', prompt: { name: 'support-reply', version: 3 } },
    ]);
    // Shipping treatment releases v3; the prompt's page names the experiment and its conclusion.
    await call(api, 'POST', `/v1/experiments/${id}/stop`, {
      conclusion: 'ship',
      variant: 'treatment',
    });
    await page.goto(`${server.url}/prompts/support-reply`);
    const use = page.getByTestId('use-support-reply v3 vs v1');
    await expect(use.getByRole('cell').first().textContent()).resolves.toBe(
      'control: v1, treatment: v3',
    );
    await expect(use.textContent()).resolves.toContain('shipped treatment (v3)');
    const history = page.getByRole('region', { name: 'Label history' });
    await expect(history.getByRole('row').nth(1).textContent()).resolves.toContain(
      'released by stopping support-reply v3 vs v1',
    );
    await check('prompt-experiments');
  });

  it('asks before a ship releases the prompt version, and leaves the label when told', async () => {
    const { org, api } = await newOrg(server.url, 'prompt-release');
    await seedPrompt(api);
    const variants = [
      { key: 'control', prompt: { name: 'support-reply', version: 1 } },
      { key: 'treatment', prompt: { name: 'support-reply', version: 3 } },
    ];
    const allocation = [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ];
    const created = (await call(api, 'POST', '/v1/experiments', {
      name: 'release-check',
      salt: 'release-check-salt',
      bucket_count: 1000,
      status: 'draft',
      variants,
      allocation,
      metrics: [metric('latency', 'latency', 'welch_t')],
    })) as Experiment;
    await call(api, 'POST', `/v1/experiments/${created.id}/start`);
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
    await page.goto(`${server.url}/experiments/${created.id}/results`);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop release-check?' });
    await dialog.getByRole('radio', { name: 'Ship a variant' }).check();
    await dialog.getByLabel('Variant to ship').selectOption('treatment');
    const release = dialog.getByLabel('Release support-reply version 3 to production');
    await expect(release.isChecked()).resolves.toBe(true);
    const outcome = dialog.getByTestId('what-users-get');
    await expect(outcome.textContent()).resolves.toContain(
      'The prompt support-reply version 3 becomes its production version',
    );
    await check('prompt-release-dialog');
    await release.uncheck();
    await expect(outcome.textContent()).resolves.toContain(
      'The prompt support-reply keeps its production label where it is.',
    );
    await dialog.getByRole('button', { name: 'Yes, stop and serve treatment' }).click();
    await dialog.waitFor({ state: 'detached' });
    const stopped = (await call(api, 'GET', `/v1/experiments/${created.id}`)) as Experiment;
    expect(stopped.status).toBe('stopped');
    const prompt = (await call(api, 'GET', '/v1/prompts/support-reply')) as Prompt;
    expect(prompt.labels).toMatchObject({ production: 1 });
  });

  it('works at 390 px wide, each page loaded on its own', async () => {
    const { org, api } = await newOrg(server.url, 'prompt-narrow');
    await seedPrompt(api);
    await openPrompt(org);
    await page.setViewportSize({ width: 390, height: 844 });
    const pages: Array<[string, string, string]> = [
      ['prompts-390', '/prompts', 'Prompts'],
      ['prompt-390', '/prompts/support-reply?from=1&to=3', 'support-reply'],
      ['prompt-editor-390', '/experiments/new?prompt=support-reply&version=2', 'New experiment'],
    ];
    for (const [name, path, title] of pages) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      await check(name);
      // Nothing wider than the screen except inside a scrollable region.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(overflow, name).toBeLessThanOrEqual(390);
    }
    await page.getByTestId('prompt-ref-treatment').waitFor();
  });
});

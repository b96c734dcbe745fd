import { checkCondition } from '@arbiter/conditions';
import type { Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { axeViolations, screenshot } from './support/browser.ts';
import { type BrowserPage, browserTestFrame } from './support/browser-page.ts';
import { type Api, call, createCheckoutCopy, newOrg, secretKey, signIn } from './support/seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * The experiment editor's targeting: the condition checked as it is typed with the server's own
 * save-time check, a live check of sample attributes against the org's saved groups, the
 * server's refusal beside the field, and the saved condition read back from the API, in
 * Chromium against the real server on PGlite.
 */
let server: TestServer;
let page: Page;
let consoleWatch: BrowserPage['consoleWatch'];

async function check(name: string) {
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  expect(await axeViolations(page), name).toEqual([]);
}

const field = () => page.getByLabel('Targeting condition (JSON object)');
const sample = () => page.getByLabel('Sample attributes (JSON object)');
const conditionCheck = () => page.getByRole('status', { name: 'Condition check' });
const liveCheck = () => page.getByRole('status', { name: 'Live check' });
const listed = (scope: ReturnType<typeof page.getByRole>) =>
  scope.getByRole('listitem').allTextContents();

/** A fresh org with the saved group `staff` (u-1, u-2), and this test's tab signed in to it. */
async function orgWithStaff(): Promise<Api> {
  const { org, api } = await newOrg(server.url, 'targeting');
  await call(api, 'POST', '/v1/saved-groups', { key: 'staff', values: ['u-1', 'u-2'] });
  await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
  return api;
}

/** What the server's assign route answers for one user with these attributes. */
async function assigned(key: string, id: string, user: string, attributes: object) {
  const res = await fetch(`${server.url}/v1/assign`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ experiment_id: id, user_id: user, attributes }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { variant: string | null; reason?: string };
}

const good = { plan: { $in: ['pro', 'team'] }, id: { $notInGroup: 'staff' } };
const broken = { plan: { $in: 'pro' }, age: { $gt: [18] } };

const ui = browserTestFrame();
beforeAll(() => {
  ({ server } = ui);
});
beforeEach(() => {
  ({ page, consoleWatch } = ui);
});

describe('targeting in the experiment editor, in Chromium', () => {
  it('checks the condition as it is typed and sample attributes against the saved groups', async () => {
    const api = await orgWithStaff();
    const id = await createCheckoutCopy(api);
    await page.goto(`${server.url}/experiments/${id}/edit`);
    await page.getByText('targeting: everyone').waitFor();
    await page.getByText('Saved groups for $inGroup: staff (2 values)').waitFor();
    await expect.poll(() => conditionCheck().textContent()).toBe('Everyone may enter.');
    await expect
      .poll(() => liveCheck().textContent())
      .toBe('matches: this user may enter (no targeting, everyone may enter)');

    await field().fill('{"plan": ');
    await expect
      .poll(() => conditionCheck().textContent())
      .toMatch(/^The condition is not valid JSON/);
    await expect
      .poll(() => liveCheck().textContent())
      .toBe('no answer: the condition is not a JSON object yet');

    // The server's own save-time check: every problem, each at its pointer.
    await field().fill(JSON.stringify(broken));
    const problems = checkCondition(broken);
    expect(problems.length).toBe(2);
    await expect
      .poll(() => listed(conditionCheck()))
      .toEqual(problems.map((p) => `${p.pointer}: ${p.message}`));
    await expect(field().getAttribute('aria-invalid')).resolves.toBe('true');
    await expect
      .poll(() => liveCheck().textContent())
      .toBe('does not match: null, no exposure (an unreadable condition matches no one)');
    // Valid in JavaScript, but outside the subset every client reads alike: unreadable.
    await field().fill('{"name": {"$regex": "(?<first>a)"}}');
    await expect.poll(() => listed(conditionCheck())).toHaveLength(1);
    expect((await listed(conditionCheck()))[0]).toMatch(/^\/name\/\$regex: /);
    // A group the org does not have, as the server would refuse it.
    await field().fill('{"id": {"$inGroup": "staf"}}');
    await expect
      .poll(() => listed(conditionCheck()))
      .toEqual(['/id/$inGroup: no saved group has the key "staf"']);

    await field().fill(JSON.stringify(good, null, 2));
    await expect.poll(() => conditionCheck().textContent()).toBe('The condition is readable.');
    await expect(field().getAttribute('aria-invalid')).resolves.toBe('false');
    const samples: Array<[object, string]> = [
      [{ plan: 'pro', id: 'u-9' }, 'matches: this user may enter'],
      [{ plan: 'pro', id: 'u-1' }, 'does not match: null, no exposure'],
      [{ plan: 'free', id: 'u-9' }, 'does not match: null, no exposure'],
      [{}, 'does not match: null, no exposure'],
    ];
    for (const [attributes, answer] of samples) {
      await sample().fill(JSON.stringify(attributes));
      await expect.poll(() => liveCheck().textContent()).toBe(answer);
    }
    await sample().fill('{"plan": "pro", "id": "u-9"}');
    await expect.poll(() => liveCheck().textContent()).toBe('matches: this user may enter');
    await check('targeting-edit');

    await sample().fill('{"plan"');
    await expect
      .poll(() => liveCheck().textContent())
      .toMatch(/^no answer: the attributes are not valid JSON \(/);
    await check('targeting-edit-unreadable-sample');

    // Saved, the server decides as the live check did.
    await page.getByRole('button', { name: 'Save new version' }).click();
    await page.getByRole('caption').filter({ hasText: 'Versions, newest first' }).waitFor();
    const key = await secretKey(api);
    for (const [attributes, answer] of samples) {
      const { reason } = await assigned(key, id, 'u-9', attributes);
      expect(reason === 'not_targeted', JSON.stringify(attributes)).toBe(
        answer.startsWith('does not match'),
      );
    }
  });

  it('shows the server’s refusal beside the field, saves the condition and takes it off again', async () => {
    const api = await orgWithStaff();
    const id = await createCheckoutCopy(api);
    await page.goto(`${server.url}/experiments/${id}/edit`);
    await field().fill(JSON.stringify(broken));
    const refused = page.waitForResponse(
      (r) => r.request().method() === 'PUT' && r.url().endsWith(`/v1/experiments/${id}`),
    );
    await consoleWatch.expecting(400, async () => {
      await page.getByRole('button', { name: 'Save new version' }).click();
      const answer = await refused;
      expect(answer.status()).toBe(400);
      const { errors } = (await answer.json()) as {
        errors: Array<{ pointer: string; detail: string }>;
      };
      const beside = page.getByRole('alert', { name: 'Targeting refused' });
      await beside.waitFor();
      expect(await listed(beside)).toEqual(
        errors
          .filter((e) => e.pointer.startsWith('#/targeting/'))
          .map((e) => `${e.pointer}: ${e.detail}`),
      );
      expect(await listed(beside)).toEqual(
        checkCondition(broken).map((p) => `#/targeting${p.pointer}: ${p.message}`),
      );
    });
    await check('targeting-refused');
    expect((await call(api, 'GET', `/v1/experiments/${id}`)).version).toBe(1);

    await field().fill(JSON.stringify(good, null, 2));
    await page.getByRole('button', { name: 'Save new version' }).click();
    await page.getByRole('caption').filter({ hasText: 'Versions, newest first' }).waitFor();
    const saved = await call(api, 'GET', `/v1/experiments/${id}`);
    expect(saved.version).toBe(2);
    expect(saved.targeting).toEqual(good);
    // The page head shows it, read-only, and the Edit tab starts from it.
    const summary = page.locator('summary').filter({ hasText: 'targeting:' });
    // As the server answers it (jsonb orders the keys its own way); short enough to show whole.
    await expect(summary.textContent()).resolves.toBe(
      `targeting: ${JSON.stringify(saved.targeting)}`,
    );
    await summary.click();
    await expect(page.getByTestId('current-targeting').textContent()).resolves.toBe(
      JSON.stringify(saved.targeting, null, 2),
    );
    await check('targeting-summary');
    await page.getByRole('link', { name: 'Edit' }).click();
    await expect.poll(() => field().inputValue()).toBe(JSON.stringify(saved.targeting, null, 2));

    // An empty box is everyone: the save takes the targeting off.
    await field().fill('');
    await page.getByRole('button', { name: 'Save new version' }).click();
    await page.getByRole('caption').filter({ hasText: 'Versions, newest first' }).waitFor();
    const cleared = await call(api, 'GET', `/v1/experiments/${id}`);
    expect(cleared.version).toBe(3);
    expect(cleared.targeting).toBeUndefined();
    await page.getByText('targeting: everyone').waitFor();
  });

  it('creates an experiment with targeting from the new-experiment form', async () => {
    const api = await orgWithStaff();
    await page.getByRole('link', { name: 'New experiment' }).click();
    await page.getByRole('heading', { name: 'New experiment', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('staff-only');
    const staffOnly = { id: { $inGroup: 'staff' } };
    await field().fill(JSON.stringify(staffOnly));
    await sample().fill('{"id": "u-2"}');
    await expect.poll(() => liveCheck().textContent()).toBe('matches: this user may enter');
    await check('targeting-create');
    await page.getByRole('button', { name: 'Create experiment' }).click();
    await page.getByRole('heading', { name: 'Collecting' }).waitFor();
    const id = page.url().split('/')[4] ?? '';
    const stored = await call(api, 'GET', `/v1/experiments/${id}`);
    expect(stored.targeting).toEqual(staffOnly);
    expect(stored.metrics).toEqual([]);
  });
});

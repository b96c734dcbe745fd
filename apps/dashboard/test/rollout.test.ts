import { eq } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { experimentRollouts, rolloutEvaluations } from '../../server/src/db/schema.ts';
import { utcMinute } from '../src/pages/lifecycle/lifecycle.ts';
import type { Ramp } from '../src/pages/rollout/ramp.ts';
import { axeViolations, screenshot } from './support/browser.ts';
import { browserTestFrame } from './support/browser-page.ts';
import { type Api, call, devToken, metric, newOrg, signIn } from './support/seed.ts';
import { serveEmbedded, type TestServer } from './support/server.ts';
import { restartWithStored } from './support/stored-state.ts';

/**
 * The ramp on an experiment's page in Chromium against the real server: the timeline of steps
 * (coverage, hold, the current one, when the next is due), pause with a reason and its red
 * banner, resume and jump for an admin; a ramp the guard paused, with its evaluation's
 * intervals; a member's read-only view and a draft's note. The page is compared with the
 * ramp the API answers in the same test.
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

/** At 390 px: axe again, and nothing wider than the screen outside a scrollable region. */
async function narrow(name: string) {
  await page.setViewportSize({ width: 390, height: 844 });
  await check(name);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(overflow, name).toBeLessThanOrEqual(390);
}

/** What a person reads: the rendered text (each step's lines apart), spaces folded. */
// biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text wanted here, not the DOM property
const text = async (l: Locator) => (await l.innerText()).replace(/\s+/g, ' ').trim();
const button = (name: string) => page.getByRole('button', { name, exact: true });
const ramp = (api: Api, id: string): Promise<Ramp> =>
  call(api, 'GET', `/v1/experiments/${id}/rollout`);

const ROLLOUT = {
  steps: [
    { coverage: 0.01, hold: 'PT1H' },
    { coverage: 0.05, hold: 'PT6H' },
    { coverage: 0.25, hold: 'P1D' },
    { coverage: 1, hold: 'P1D' },
  ],
  on_violation: 'pause',
};

/** A running experiment with a ramp (created running, so its ramp starts at once). */
async function rampedExperiment(api: Api, name: string, status = 'running'): Promise<string> {
  const body = {
    name,
    status,
    salt: `${name}-salt`,
    bucket_count: 1000,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ],
    metrics: [{ ...metric('latency', 'latency', 'welch_t'), category: 'guardrail' }],
    rollout: ROLLOUT,
  };
  return (await call(api, 'POST', '/v1/experiments', body)).id;
}

async function openRamp(base: string, id: string) {
  await page.goto(`${base}/experiments/${id}/results`);
  await page.getByRole('link', { name: 'Ramp', exact: true }).click();
  await page.getByRole('list', { name: 'Ramp steps' }).waitFor();
}

it('shows the timeline, pauses with a red banner, resumes and jumps', async () => {
  const { org, api } = await newOrg(server.url, 'ramp');
  const id = await rampedExperiment(api, 'model-swap');
  const before = await ramp(api, id);
  expect(before).toMatchObject({ state: 'running', step: 1, coverage: 0.01 });
  await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
  await openRamp(server.url, id);
  const step = (n: number) => page.getByTestId(`ramp-step-${n}`);
  await expect(step(1).getAttribute('aria-current')).resolves.toBe('step');
  await expect(text(step(1))).resolves.toContain('Step 1: 1% hold 1 hour current step since');
  await expect(text(step(2))).resolves.toBe('Step 2: 5% hold 6 hours to come');
  await expect(text(step(3))).resolves.toBe('Step 3: 25% hold 1 day to come');
  await expect(text(page.getByTestId('ramp-next'))).resolves.toMatch(
    new RegExp(`^next step ${utcMinute(before.next_step_at ?? '')} \\(in (59 min|1 h)\\)$`),
  );
  await expect(page.getByRole('alert').count()).resolves.toBe(0);
  await page.getByText('No guard evaluation yet.').waitFor();
  await check('ramp-timeline');

  await page.getByLabel('Reason (optional)').fill('p95 latency looks high');
  await button('Pause ramp').click();
  const banner = page.getByTestId('ramp-paused');
  await expect(text(banner)).resolves.toBe(
    'Ramp paused. The ramp was paused at step 1 (1% of eligible users): p95 latency looks high. The coverage stays where it is and no step advances until it is resumed.',
  );
  expect(await ramp(api, id)).toMatchObject({
    state: 'paused',
    paused_by: 'user',
    paused_reason: 'p95 latency looks high',
    next_step_at: null,
  });
  await expect(text(page.getByTestId('ramp-next'))).resolves.toBe('paused: no step is due');
  await check('ramp-paused');

  await button("Resume ramp (the step's hold starts again in full)").click();
  await banner.waitFor({ state: 'detached' });
  const resumed = await ramp(api, id);
  expect(resumed).toMatchObject({ state: 'running', paused_by: null });
  await expect(text(page.getByTestId('ramp-next'))).resolves.toContain(
    `next step ${utcMinute(resumed.next_step_at ?? '')}`,
  );

  await page.getByLabel('Jump to step').selectOption('3');
  await button('Jump').click();
  await expect.poll(() => step(3).getAttribute('aria-current')).toBe('step');
  await expect(text(page.getByTestId('ramp-summary'))).resolves.toContain(
    'Step 3 of 4 · coverage 25%',
  );
  await expect(text(step(1))).resolves.toContain('done');
  expect(await ramp(api, id)).toMatchObject({ step: 3, coverage: 0.25 });
  expect((await call(api, 'GET', `/v1/experiments/${id}`)).coverage).toBe(0.25);
  await narrow('ramp-390');
});

it('shows the guard’s pause and its evaluation, and a person resumes', async () => {
  // A guard that acted, written where the server keeps it (the guard's own statistics are the
  // server's to test); the server then serves it as any ramp.
  let own = await serveEmbedded();
  try {
    const { org, api: first } = await newOrg(own.url, 'ramp-guard');
    const id = await rampedExperiment(first, 'guarded');
    const at = new Date(Date.now() - 10 * 60_000);
    const reason = 'latency worse in treatment at the always-valid level';
    // As the guard stores a reading; the arms' sizes and the direction are for servers that
    // serve them.
    const reading = {
      metric: 'latency',
      treatment: 'treatment',
      direction: 'decrease' as const,
      effect: 21,
      ci_low: 4.2,
      ci_high: 37.8,
      p_value: 0.0031,
      n_control: 400,
      n_treatment: 400,
      worse: true,
    };
    own = await restartWithStored(own, {}, async (db) => {
      const [row] = await db
        .update(experimentRollouts)
        .set({ state: 'paused', pausedBy: 'guard', pausedReason: reason, advanceAt: null })
        .where(eq(experimentRollouts.experimentId, id))
        .returning({ orgId: experimentRollouts.orgId });
      await db.insert(rolloutEvaluations).values({
        experimentId: id,
        orgId: row?.orgId ?? '',
        evaluatedAt: at,
        step: 0,
        coverage: 0.01,
        srmP: 0.62,
        guardrails: [reading],
        action: 'paused',
        reason,
      });
    });
    const api = { base: own.url, token: await devToken(own.url, org) };
    const served = await ramp(api, id);
    expect(served).toMatchObject({ state: 'paused', paused_by: 'guard' });
    expect(served.evaluations).toHaveLength(1);

    await signIn(page, own.url, { email: 'analyst@example.com', org, role: 'admin' });
    await openRamp(own.url, id);
    await expect(text(page.getByTestId('ramp-paused'))).resolves.toContain(
      `The guard paused the ramp at step 1 (1% of eligible users): ${reason}.`,
    );
    const row = page.getByTestId('guard-evaluation');
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells).toEqual([
      utcMinute(at.toISOString()),
      '1 (1%)',
      expect.stringMatching(/^latency · treatment: \[4\.2, 37\.8\], p 0\.003\d* worse$/),
      expect.stringMatching(/^0\.62/),
      `paused the ramp: ${reason}`,
    ]);
    await check('ramp-guard-paused');

    await button("Resume ramp (the step's hold starts again in full)").click();
    await page.getByTestId('ramp-paused').waitFor({ state: 'detached' });
    expect(await ramp(api, id)).toMatchObject({ state: 'running', paused_by: null });
  } finally {
    await own.stop();
  }
});

it('shows a member the ramp without buttons, and a draft’s ramp as not started', async () => {
  const { org, api } = await newOrg(server.url, 'ramp-member');
  const id = await rampedExperiment(api, 'member-view');
  const draft = await rampedExperiment(api, 'not-yet', 'draft');
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes(`/v1/experiments/${draft}/rollout`)) asked.push(r.url());
  });
  await signIn(page, server.url, { email: 'member@example.com', org, role: 'member' });
  await openRamp(server.url, id);
  await page.getByText('member@example.com · member').waitFor();
  await expect(page.getByRole('button', { name: /Pause|Resume|Jump/ }).count()).resolves.toBe(0);
  await check('ramp-member');

  await page.goto(`${server.url}/experiments/${draft}/ramp`);
  await expect(text(page.getByTestId('ramp-not-started'))).resolves.toBe(
    'The ramp starts when the experiment starts: step 1 sets the coverage to 1% of eligible users.',
  );
  expect(asked).toEqual([]);
  await check('ramp-draft');
});

import type { Page } from 'playwright-core';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { axeViolations, screenshot } from './support/browser.ts';
import { browserTestFrame } from './support/browser-page.ts';
import {
  armEvents,
  call,
  createExperiment,
  ingest,
  metric,
  newOrg,
  secretKey,
  signIn,
  waitForExposures,
} from './support/seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * The results page's line on targeting: the share of users it excluded, from the tallies the
 * clients report to POST /v1/targeting-tallies, in Chromium against the real server on PGlite;
 * an experiment without targeting has no such line.
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

/** An experiment with a manual run past the collecting threshold (200 per arm), and its id. */
async function analysed(
  api: Awaited<ReturnType<typeof newOrg>>['api'],
  key: string,
  name: string,
  targeting?: object,
) {
  const metrics = [metric('latency', 'latency', 'welch_t')];
  const id = await createExperiment(api, name, { control: 50, treatment: 50 }, metrics);
  if (targeting !== undefined) await call(api, 'PUT', `/v1/experiments/${id}`, { targeting });
  await ingest(server.url, key, armEvents(id, { control: 210, treatment: 210 }, {}));
  await waitForExposures(api, id, 420);
  await call(api, 'POST', `/v1/experiments/${id}/analyze`);
  return id;
}

describe('the share of users targeting excluded, in Chromium', () => {
  it('shows it, with the counts, for an experiment with targeting, and nothing without', async () => {
    const { org, api } = await newOrg(server.url, 'tallies');
    const key = await secretKey(api);
    const targeted = await analysed(api, key, 'pro-only', { plan: 'pro' });
    const plain = await analysed(api, key, 'everyone');
    const day = new Date().toISOString().slice(0, 10);
    const res = await fetch(`${server.url}/v1/targeting-tallies`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        tallies: [
          { experiment_id: targeted, day, matched: 600, excluded: 300 },
          { experiment_id: targeted, day, matched: 30, excluded: 70 },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const served = await call(api, 'GET', `/v1/experiments/${targeted}/results`);
    expect(served.targeting).toEqual({
      matched: 630,
      excluded: 370,
      excluded_share: 0.37,
      days: 1,
    });
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });

    await page.goto(`${server.url}/experiments/${targeted}/results`);
    const line = page.getByTestId('targeting-share');
    await expect
      .poll(() => line.textContent())
      .toBe(
        'Targeting excluded 37 % of the users who reached it (client-reported): 370 excluded, 630 matched, over 1 day.',
      );
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'results-targeting-share');
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${server.url}/experiments/${plain}/results`);
    await page.getByTestId('srm-passed').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByTestId('targeting-share').count()).toBe(0);
  });
});

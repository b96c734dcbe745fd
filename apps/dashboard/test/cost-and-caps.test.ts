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
 * The results page's cost per arm (per user and per call, per conversion from a ratio metric)
 * and each capped metric's cap, in Chromium against the real server on PGlite, checked by axe.
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

const ratio = (name: string, denominator: object) => ({
  ...metric(name, 'ratio', 'welch_t'),
  category: 'secondary',
  direction: 'decrease',
  numerator: { of: 'cost' },
  denominator,
});

describe('cost per arm and the caps, in Chromium', () => {
  it('shows dollars per user and per call, cost per conversion, and each cap', async () => {
    const { org, api } = await newOrg(server.url, 'cost-caps');
    const key = await secretKey(api);
    const metrics = [
      metric('latency', 'latency', 'welch_t'),
      { ...metric('cost', 'cost', 'welch_t'), category: 'secondary' },
      ratio('cost-per-call', { of: 'calls' }),
      ratio('cost-per-purchase', { business_metric: 'purchase', of: 'count' }),
    ];
    const id = await createExperiment(api, 'cost-caps', { control: 50, treatment: 50 }, metrics);
    const events = armEvents(id, { control: 210, treatment: 210 }, { treatment: -20 });
    const now = new Date().toISOString();
    // Every fifth user buys once; one control user's call is a slow, expensive outlier.
    for (let u = 0; u < 210; u += 5)
      for (const variant of ['control', 'treatment'])
        events.push({
          event_id: `p-${variant}-${u}`,
          type: 'business_event',
          experiment_id: id,
          user_id: `${variant}-${u}`,
          variant,
          timestamp: now,
          business_metric: 'purchase',
          value: 1,
        });
    events.push({
      event_id: 'outlier',
      type: 'model_call',
      experiment_id: id,
      user_id: 'control-3',
      variant: 'control',
      timestamp: now,
      latency_ms: 90_000,
      cost_usd: 4,
      model: 'm',
    });
    await ingest(server.url, key, events);
    await waitForExposures(api, id, 420);
    const run = await call(api, 'POST', `/v1/experiments/${id}/analyze`);
    const latency = run.results['latency::treatment'];
    expect(latency.capping.cap).toEqual({ percentile: 0.999 });
    expect(latency.capping.users_capped).toEqual({ control: 1, treatment: 0 });
    await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });

    await page.goto(`${server.url}/experiments/${id}/results`);
    const panel = page.getByTestId('cost-panel');
    await panel.waitFor();
    // Per user: each arm's mean spend over the window, the outlier's $4 held within the cap.
    const cost = run.results['cost::treatment'];
    expect(cost.capping.users_capped).toEqual({ control: 1, treatment: 0 });
    const perUser = page.getByTestId('cost-cost');
    expect(await perUser.textContent()).toContain('per user, capped');
    expect(await perUser.locator('td').allTextContents()).toEqual([
      `$${num(cost.mean_per_arm.control, 4)}`,
      `$${num(cost.mean_per_arm.treatment, 4)}`,
    ]);
    const perPurchase = run.results['cost-per-purchase::treatment'];
    expect(
      await page.getByTestId('cost-cost-per-purchase').locator('td').allTextContents(),
    ).toEqual([
      `$${num(perPurchase.mean_per_arm.control, 4)}`,
      `$${num(perPurchase.mean_per_arm.treatment, 4)}`,
    ]);
    const cap = page.getByTestId('cap-latency');
    expect(await cap.textContent()).toBe(
      `Capped: per-user values above ${num(latency.capping.upper)} ms (p99.9 of both arms) were set to the bound before the test; 1 user in control, 0 in treatment.`,
    );
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'results-cost-per-user');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('radio', { name: 'Per call', exact: true }).click();
    await page.waitForURL(/cost=call/);
    const perCall = page.getByTestId('cost-cost-per-call');
    await perCall.waitFor();
    const call_ = run.results['cost-per-call::treatment'];
    expect(await perCall.locator('td').allTextContents()).toEqual([
      `$${num(call_.mean_per_arm.control, 4)}`,
      `$${num(call_.mean_per_arm.treatment, 4)}`,
    ]);
    expect(await page.getByTestId('cost-cost').count()).toBe(0);
    await screenshot(page, 'results-cost-per-call');
    expect(await axeViolations(page)).toEqual([]);
  });
});

/** The dashboard's number format (`num` in src/pages/results/format.ts). */
function num(x: number, digits = 3): string {
  return Math.abs(x) >= 1000
    ? Math.round(x).toLocaleString('en-US')
    : Number(x.toPrecision(digits)).toLocaleString('en-US', { maximumSignificantDigits: 21 });
}

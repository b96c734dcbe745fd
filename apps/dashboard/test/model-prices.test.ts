import type { Page } from 'playwright-core';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { axeViolations, screenshot } from './support/browser.ts';
import { browserTestFrame } from './support/browser-page.ts';
import {
  call,
  createExperiment,
  ingest,
  metric,
  newOrg,
  secretKey,
  signIn,
} from './support/seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * In Chromium against the real server: model calls whose model no price row matches are listed
 * on the usage page with their counts, each with a link to add its price, which opens the
 * prices page with the model filled in; both pages pass axe.
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

it('lists unpriced calls per model on Usage, with a link to add the price', async () => {
  const { org, api } = await newOrg(server.url, 'prices');
  const key = await secretKey(api);
  const id = await createExperiment(api, 'priced', { control: 50, treatment: 50 }, [
    metric('latency', 'latency', 'welch_t'),
  ]);
  const at = new Date().toISOString();
  const call_ = (n: number, model: string) => ({
    event_id: `c-${n}`,
    type: 'model_call',
    experiment_id: id,
    user_id: `u-${n}`,
    timestamp: at,
    model,
    input_tokens: 100,
    output_tokens: 10,
  });
  await ingest(server.url, key, [
    call_(1, 'house-llm-7'),
    call_(2, 'house-llm-7'),
    call_(3, 'house-llm-7'),
    call_(4, 'gpt-4o-mini'),
  ]);
  const usage = await call(api, 'GET', '/v1/usage');
  expect(usage.unpriced_calls).toEqual([{ model: 'house-llm-7', calls: 3 }]);
  await signIn(page, server.url, { email: 'analyst@example.com', org, role: 'admin' });
  await page.goto(`${server.url}/usage`);
  const notice = page.getByTestId('unpriced-calls');
  await notice.waitFor();
  const row = notice.getByRole('row').filter({ hasText: 'house-llm-7' });
  await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe('3');
  await check('usage-unpriced-calls');
  await row.getByRole('link', { name: 'Add a price for house-llm-7' }).click();
  await page.getByRole('heading', { name: 'Model prices', level: 1 }).waitFor();
  await expect(page.getByLabel('Model').inputValue()).resolves.toBe('house-llm-7');
  await check('model-prices-form');
});

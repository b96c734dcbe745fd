import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ARBITER_MIN_EVENTS_PER_ARM: '50' });
});
afterAll(() => h.close());

it('the live view tells the collecting threshold the server applies', async () => {
  const acme = await h.org('acme');
  const id = await h.experiment(acme.admin);
  const res = await h.call(acme.admin, { method: 'GET', url: `/v1/experiments/${id}/live` });
  expect(res.statusCode).toBe(200);
  expect(res.json().min_events_per_arm).toBe(50);
});

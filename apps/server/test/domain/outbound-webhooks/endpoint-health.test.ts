import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISABLE_AFTER_FAILING_MS } from '../../../src/domain/outbound-webhooks/endpoint-health.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { startReceiver } from './receiver.ts';

/**
 * An endpoint that fails every attempt for five days is disabled by the server (audited, with
 * its reason); one success resets the count; enabling it again clears the reason.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let instant = Date.now();
const clock = { now: () => new Date(instant) };
const HOUR = 3_600_000;

beforeAll(async () => {
  h = await startHarness({}, { clock });
  acme = await h.org('acme_health');
});
afterAll(() => h.close());

const BASE = '/v1/webhook-endpoints';
const endpoint = async (id: string) =>
  (await h.call(acme.admin, { method: 'GET', url: `${BASE}/${id}` })).json();

async function failingEndpoint(script: number[]) {
  const receiver = await startReceiver(script);
  const res = await h.call(acme.admin, {
    method: 'POST',
    url: BASE,
    payload: { url: receiver.url },
  });
  return { receiver, id: res.json().id as string };
}

/** Queues a test event and makes every attempt due in the next `hours`. */
async function sendAndWait(id: string, hours: number) {
  await h.call(acme.admin, { method: 'POST', url: `${BASE}/${id}/test` });
  for (let t = 0; t < hours; t++) {
    await h.ctx.webhookDelivery.drain();
    instant += HOUR;
  }
}

describe('endpoint health', () => {
  it('disables an endpoint whose every attempt failed for five days, and audits it', async () => {
    const { receiver, id } = await failingEndpoint(Array(100).fill(500));
    const start = instant;
    await sendAndWait(id, 1);
    expect(await endpoint(id)).toMatchObject({
      enabled: true,
      failing_since: new Date(start).toISOString(),
      disabled_reason: null,
    });
    while (instant - start < DISABLE_AFTER_FAILING_MS - 2 * HOUR) await sendAndWait(id, 24);
    expect((await endpoint(id)).enabled).toBe(true);
    instant = start + DISABLE_AFTER_FAILING_MS;
    await sendAndWait(id, 1);
    expect(await endpoint(id)).toMatchObject({
      enabled: false,
      disabled_reason: 'every attempt failed for 5 days',
    });
    const audit = (await h.call(acme.admin, { method: 'GET', url: '/v1/audit?limit=3' })).body;
    expect(audit).toContain('webhook_endpoint.disabled');
    const sent = receiver.received.length;
    await sendAndWait(id, 30);
    expect(receiver.received).toHaveLength(sent);

    const enabled = await h.call(acme.admin, {
      method: 'PATCH',
      url: `${BASE}/${id}`,
      payload: { enabled: true },
    });
    expect(enabled.json()).toMatchObject({
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });
    await receiver.close();
  });

  it('keeps an endpoint that answers once in a while', async () => {
    const script = [...Array(20).fill(500), 200, ...Array(100).fill(500)];
    const { receiver, id } = await failingEndpoint(script);
    for (let day = 0; day < 7; day++) await sendAndWait(id, 24);
    const after = await endpoint(id);
    expect(after.enabled).toBe(true);
    expect(new Date(after.failing_since).getTime()).toBeGreaterThan(
      instant - DISABLE_AFTER_FAILING_MS,
    );
    await receiver.close();
  });
});

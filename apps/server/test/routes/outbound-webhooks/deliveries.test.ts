import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../domain/outbound-webhooks/receiver.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * An endpoint's deliveries: listed newest first with their state and the event, paged by
 * cursor, filtered by status, and sent once more on request (audited); nothing of another org.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let instant = Date.now();
const clock = { now: () => new Date(instant) };
// Every endpoint here points at a local receiver: a drain sends whatever is due, of any test.
let sink: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  h = await startHarness({}, { clock });
  acme = await h.org('acme_deliveries');
  sink = await startReceiver();
});
afterAll(async () => {
  await sink.close();
  await h.close();
});

const BASE = '/v1/webhook-endpoints';

async function endpointFor(url: string): Promise<string> {
  const res = await h.call(acme.admin, { method: 'POST', url: BASE, payload: { url } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function queueTests(id: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    instant += 1000;
    ids.push((await h.call(acme.admin, { method: 'POST', url: `${BASE}/${id}/test` })).json().id);
  }
  return ids;
}

const list = (id: string, query = '') =>
  h.call(acme.admin, { method: 'GET', url: `${BASE}/${id}/deliveries${query}` });

describe('the deliveries of an endpoint', () => {
  it('logs every attempt: status, the first 1 KiB of the answer, duration, error', async () => {
    const receiver = await startReceiver([503], `${'é'.repeat(600)}tail`);
    const id = await endpointFor(receiver.url);
    const [eventId] = await queueTests(id, 1);
    await h.ctx.webhookDelivery.drain();
    instant += 5_000;
    await h.ctx.webhookDelivery.drain();
    const [delivery] = (await list(id)).json();
    expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered', attempts: 2 });
    const log = delivery.attempt_log as Array<Record<string, unknown>>;
    expect(log.map((a) => [a.attempt, a.response_status, a.error])).toEqual([
      [1, 503, null],
      [2, 200, null],
    ]);
    // 1,204 bytes answered (600 two-byte characters and a tail): 1,024 kept.
    expect(Buffer.byteLength(String(log[0]!.response_body))).toBe(1024);
    expect(String(log[0]!.response_body)).not.toContain('tail');
    for (const a of log) {
      expect(Number.isInteger(a.duration_ms) && (a.duration_ms as number) >= 0).toBe(true);
      expect(Date.parse(String(a.started_at))).toBeGreaterThan(0);
    }
    expect(log[1]!.started_at).toBe(new Date(instant).toISOString());
    await receiver.close();
  });

  it('logs an attempt that got no answer with its error', async () => {
    const gone = await startReceiver();
    await gone.close();
    const id = await endpointFor(gone.url);
    await queueTests(id, 1);
    await h.ctx.webhookDelivery.drain();
    const [delivery] = (await list(id)).json();
    expect(delivery.attempt_log).toHaveLength(1);
    expect(delivery.attempt_log[0]).toMatchObject({
      attempt: 1,
      response_status: null,
      response_body: null,
    });
    expect(delivery.attempt_log[0].error).toMatch(/ECONNREFUSED/);
  });

  it('lists them newest first, a page at a time, with the event', async () => {
    const id = await endpointFor(sink.url);
    const events = await queueTests(id, 5);
    const first = await list(id, '?limit=2');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['arbiter-has-more']).toBe('true');
    const page1 = first.json() as Array<{
      id: string;
      event_id: string;
      status: string;
      event: { type: string };
    }>;
    expect(page1.map((d) => d.event_id)).toEqual([events[4], events[3]]);
    expect(page1[0]).toMatchObject({
      status: 'pending',
      attempts: 0,
      event: { type: 'webhook_endpoint.test' },
    });
    const rest = await list(id, `?limit=10&starting_after=${page1[1]!.id}`);
    expect(rest.headers['arbiter-has-more']).toBe('false');
    expect(rest.json().map((d: { event_id: string }) => d.event_id)).toEqual([
      events[2],
      events[1],
      events[0],
    ]);
  });

  it('filters by status and sends a failed one once more, with the same event id', async () => {
    const receiver = await startReceiver(Array(8).fill(500));
    const id = await endpointFor(receiver.url);
    const [eventId] = await queueTests(id, 1);
    for (let i = 0; i < 9; i++) {
      await h.ctx.webhookDelivery.drain();
      instant += 11 * 3_600_000;
    }
    const failed = (await list(id, '?status=failed')).json();
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ event_id: eventId, attempts: 8, last_response_status: 500 });
    expect((await list(id, '?status=delivered')).json()).toHaveLength(0);
    const retried = await h.call(acme.admin, {
      method: 'POST',
      url: `${BASE}/${id}/deliveries/${failed[0].id}/retry`,
    });
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json()).toMatchObject({ status: 'pending', finished_at: null });
    await h.ctx.webhookDelivery.drain();
    expect(receiver.received).toHaveLength(9);
    expect(receiver.received[8]!.headers['webhook-id']).toBe(eventId);
    expect((await list(id, '?status=delivered')).json()).toHaveLength(1);
    const audit = await h.call(acme.admin, { method: 'GET', url: '/v1/audit?limit=5' });
    expect(audit.body).toContain('webhook_delivery.retried');
    await receiver.close();
  });

  it("answers 404 for another org's endpoint or delivery, and changes nothing", async () => {
    const id = await endpointFor(sink.url);
    await queueTests(id, 1);
    const [delivery] = (await list(id)).json();
    const other = await h.org('other_deliveries');
    const read = await h.call(other.admin, { method: 'GET', url: `${BASE}/${id}/deliveries` });
    expect(read.statusCode).toBe(404);
    expect(read.json().type).toBe('/problems/webhook-endpoint-not-found');
    const retry = await h.call(other.admin, {
      method: 'POST',
      url: `${BASE}/${id}/deliveries/${delivery.id}/retry`,
    });
    expect(retry.statusCode).toBe(404);
    const unknown = await h.call(acme.admin, {
      method: 'POST',
      url: `${BASE}/${id}/deliveries/00000000-0000-4000-8000-000000000000/retry`,
    });
    expect(unknown.json().type).toBe('/problems/webhook-delivery-not-found');
    expect((await list(id, '?limit=0')).statusCode).toBe(400);
  });
});

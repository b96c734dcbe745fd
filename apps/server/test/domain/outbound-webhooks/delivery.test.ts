import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../../src/db/schema.ts';
import { enqueueWebhookEvent } from '../../../src/domain/outbound-webhooks/outbox.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { pythonVerifies } from './python-verify.ts';
import { startReceiver, webhookHeaders } from './receiver.ts';

/**
 * Delivery of outbound webhooks: signed by the Standard Webhooks scheme and verified by its
 * libraries unchanged (TypeScript and Python), both secrets during a rotation, retries by the backoff on a test clock,
 * and the event types an endpoint asked for.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let instant = Date.now();
const clock = { now: () => new Date(instant) };
const advance = (ms: number) => {
  instant += ms;
};

beforeAll(async () => {
  h = await startHarness({}, { clock });
  acme = await h.org('acme_delivery');
});
afterAll(() => h.close());

const BASE = '/v1/webhook-endpoints';

async function endpointFor(url: string, payload: object = {}) {
  const res = await h.call(acme.admin, { method: 'POST', url: BASE, payload: { url, ...payload } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; secret: string };
}

async function sendTest(id: string): Promise<string> {
  const res = await h.call(acme.admin, { method: 'POST', url: `${BASE}/${id}/test` });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().id;
}

const deliveriesOf = (endpointId: string) =>
  h.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));

describe('delivering outbound webhooks', () => {
  it('sends a test event the standardwebhooks library verifies, once', async () => {
    const receiver = await startReceiver();
    const { id, secret } = await endpointFor(receiver.url);
    const messageId = await sendTest(id);
    expect(receiver.received).toHaveLength(0);
    await h.ctx.webhookDelivery.drain();
    await h.ctx.webhookDelivery.drain();
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got!.headers['webhook-id']).toBe(messageId);
    const event = new Webhook(secret).verify(got!.body, webhookHeaders(got!.headers));
    expect(event).toMatchObject({ type: 'webhook_endpoint.test', data: { endpoint_id: id } });
    expect((event as { timestamp: string }).timestamp).toBe(new Date(instant).toISOString());
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        got!.body,
        webhookHeaders(got!.headers),
      ),
    ).toThrow();
    expect(
      pythonVerifies(got!, [secret, `whsec_${Buffer.alloc(32, 1).toString('base64')}`]),
    ).toEqual([true, false]);
    const [row] = await deliveriesOf(id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, lastResponseStatus: 200 });
    await receiver.close();
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one alone', async () => {
    const receiver = await startReceiver();
    const { id, secret: old } = await endpointFor(receiver.url);
    const rotated = await h.call(acme.admin, {
      method: 'POST',
      url: `${BASE}/${id}/rotate-secret`,
    });
    const fresh = rotated.json().secret as string;
    await sendTest(id);
    await h.ctx.webhookDelivery.drain();
    const [during] = receiver.received;
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(
        new Webhook(secret).verify(during!.body, webhookHeaders(during!.headers)),
      ).toMatchObject({
        type: 'webhook_endpoint.test',
      });
    }
    expect(pythonVerifies(during!, [old, fresh])).toEqual([true, true]);
    advance(24 * 60 * 60 * 1000 + 1000);
    await sendTest(id);
    await h.ctx.webhookDelivery.drain();
    const after = receiver.received[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    await receiver.close();
  });

  it('retries a receiver answering 500 three times by the backoff, the same id each time', async () => {
    const receiver = await startReceiver([500, 500, 500]);
    const { id } = await endpointFor(receiver.url);
    const messageId = await sendTest(id);
    const waits = [5_000, 5 * 60_000, 30 * 60_000];
    await h.ctx.webhookDelivery.drain();
    for (const wait of waits) {
      const [row] = await deliveriesOf(id);
      expect(row).toMatchObject({ status: 'pending', lastResponseStatus: 500 });
      expect(row!.nextAttemptAt.getTime()).toBe(instant + wait);
      advance(wait - 1);
      await h.ctx.webhookDelivery.drain();
      const attempts = receiver.received.length;
      advance(1);
      await h.ctx.webhookDelivery.drain();
      expect(receiver.received.length).toBe(attempts + 1);
    }
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([messageId]),
    );
    const [row] = await deliveriesOf(id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 4, lastResponseStatus: 200 });
    await receiver.close();
  });

  it('gives up after the last wait and marks the message failed', async () => {
    const receiver = await startReceiver(Array(20).fill(503));
    const { id } = await endpointFor(receiver.url);
    await sendTest(id);
    for (let i = 0; i < 10; i++) {
      await h.ctx.webhookDelivery.drain();
      advance(11 * 60 * 60 * 1000);
    }
    expect(receiver.received).toHaveLength(8);
    const [row] = await deliveriesOf(id);
    expect(row).toMatchObject({ status: 'failed', attempts: 8, lastResponseStatus: 503 });
    await receiver.close();
  });

  it('queues an event only for the enabled endpoints that want its type', async () => {
    const org = await h.org('types_delivery');
    const make = async (payload: object) =>
      (
        await h.call(org.admin, {
          method: 'POST',
          url: BASE,
          payload: { url: 'https://h.example.com', ...payload },
        })
      ).json().id as string;
    const all = await make({});
    const started = await make({ event_types: ['experiment.started'] });
    const stopped = await make({ event_types: ['experiment.stopped'] });
    const disabled = await make({ enabled: false });
    await enqueueWebhookEvent(
      h.ctx.db,
      org.orgId,
      { type: 'experiment.started', data: {} },
      clock.now(),
    );
    const counts = await Promise.all(
      [all, started, stopped, disabled].map(async (e) => (await deliveriesOf(e)).length),
    );
    expect(counts).toEqual([1, 1, 0, 0]);
  });
});

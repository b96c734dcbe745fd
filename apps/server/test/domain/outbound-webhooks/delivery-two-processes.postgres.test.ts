import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.ts';
import { webhookDeliveries } from '../../../src/db/schema.ts';
import { enqueueWebhookEvent } from '../../../src/domain/outbound-webhooks/outbox.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type SecondProcess, secondProcess } from '../../support/second-process.ts';
import { startReceiver } from './receiver.ts';

/**
 * Two API processes on one PostgreSQL drain the same outbox at once: each of 1,000 events is
 * attempted once, by one of them (the claim's `for update skip locked`), and delivered once.
 */
const EVENTS = 1_000;
let h: Harness;
let other: SecondProcess;
let acme: Awaited<ReturnType<Harness['org']>>;
const instant = Date.parse('2026-11-03T09:00:00Z');
const clock = { now: () => new Date(instant) };

beforeAll(async () => {
  h = await startHarness({}, { clock });
  other = await secondProcess(h, { clock });
  acme = await h.org('acme_webhooks_two');
});
afterAll(async () => {
  await other.close();
  await h.close();
});

describe('outbound webhooks delivered by two processes at once', () => {
  it('make each attempt once: 1,000 events, 1,000 requests, 1,000 distinct ids', async () => {
    const receiver = await startReceiver();
    const created = await h.call(acme.admin, {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      payload: { url: receiver.url, event_types: ['webhook_endpoint.test'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const endpointId = created.json().id as string;
    const queued = new Set<string>();
    await h.ctx.db.transaction(async (tx) => {
      for (let i = 0; i < EVENTS; i++) {
        const data = { endpoint_id: endpointId, message: `event ${i}` };
        queued.add(
          await enqueueWebhookEvent(
            tx,
            acme.orgId,
            { type: 'webhook_endpoint.test', data },
            clock.now(),
          ),
        );
      }
    });
    await Promise.all([
      h.ctx.webhookDelivery.drain(),
      other.ctx.webhookDelivery.drain(),
      h.ctx.webhookDelivery.drain(),
      other.ctx.webhookDelivery.drain(),
    ]);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids)).toEqual(queued);
    const [counts] = await h.ctx.db
      .select({
        delivered: sql<number>`count(*) filter (where status = 'delivered')`,
        once: sql<number>`count(*) filter (where attempts = 1)`,
      })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpointId));
    expect(Number(counts!.delivered)).toBe(EVENTS);
    expect(Number(counts!.once)).toBe(EVENTS);
    const [logged] = await rows<{ n: number }>(
      h.ctx.db,
      sql`select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ${endpointId}`,
    );
    expect(Number(logged!.n)).toBe(EVENTS);
    await receiver.close();
  });
});

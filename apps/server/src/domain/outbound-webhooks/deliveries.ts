import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { newestFirst } from '../../db/keyset-page.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema.ts';
import { UUID } from '../../schemas/uuid.ts';
import { recordAudit } from '../audit.ts';
import type { Caller } from '../identity/identity.ts';
import { DomainError } from '../outcomes.ts';

type Row = typeof webhookDeliveries.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;

const presentAttempt = (a: AttemptRow) => ({
  attempt: a.attempt,
  started_at: a.startedAt.toISOString(),
  duration_ms: a.durationMs,
  response_status: a.responseStatus,
  response_body: a.responseBody,
  error: a.error,
});

export const DELIVERIES_PAGE_DEFAULT = 50;
export const DELIVERIES_PAGE_MAX = 200;

const present = (row: Row, attempts: AttemptRow[]) => ({
  id: row.id,
  event_id: row.messageId,
  event_type: row.eventType,
  status: row.status as 'pending' | 'delivered' | 'failed',
  attempts: row.attempts,
  next_attempt_at: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
  last_response_status: row.lastResponseStatus,
  last_error: row.lastError,
  created_at: row.createdAt.toISOString(),
  finished_at: row.finishedAt?.toISOString() ?? null,
  event: JSON.parse(row.body) as unknown,
  attempt_log: attempts.map(presentAttempt),
});

/** The attempts of these deliveries, each delivery's in the order made. */
async function attemptsOf(db: Pick<Database, 'select'>, ids: string[]) {
  const byDelivery = new Map<string, AttemptRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byDelivery;
  const found = await db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, ids))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt));
  for (const a of found) byDelivery.get(a.deliveryId)?.push(a);
  return byDelivery;
}

const endpointNotFound = (id: string) =>
  new DomainError('webhook-endpoint-not-found', `No webhook endpoint ${id} in your org`);

async function requireEndpoint(db: Pick<Database, 'select'>, orgId: string, id: string) {
  if (!UUID.test(id)) throw endpointNotFound(id);
  const [row] = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)));
  if (!row) throw endpointNotFound(id);
}

async function deliveryRow(db: Pick<Database, 'select'>, endpointId: string, id: string) {
  const missing = new DomainError(
    'webhook-delivery-not-found',
    `No delivery ${id} of webhook endpoint ${endpointId}`,
  );
  if (!UUID.test(id)) throw missing;
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, id)));
  if (!row) throw missing;
  return row;
}

export interface DeliveryQuery {
  status?: 'pending' | 'delivered' | 'failed';
  limit: number;
  startingAfter?: string;
}

/**
 * An endpoint's deliveries, newest first, a page at a time (`startingAfter` is the last
 * delivery id of the previous page); one more row than the page is read to say whether more lie
 * beyond it.
 */
export async function listDeliveries(
  db: Database,
  orgId: string,
  endpointId: string,
  q: DeliveryQuery,
) {
  await requireEndpoint(db, orgId, endpointId);
  const after = q.startingAfter ? await deliveryRow(db, endpointId, q.startingAfter) : null;
  const order = newestFirst(
    webhookDeliveries.createdAt,
    webhookDeliveries.id,
    after && { time: after.createdAt, id: after.id },
  );
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        q.status ? eq(webhookDeliveries.status, q.status) : undefined,
        order.after,
      ),
    )
    .orderBy(...order.orderBy)
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const attempts = await attemptsOf(
    db,
    page.map((r) => r.id),
  );
  return {
    deliveries: page.map((r) => present(r, attempts.get(r.id) ?? [])),
    hasMore: rows.length > q.limit,
  };
}

/**
 * Sends a delivery once more, now, whatever its state (Svix's and Stripe's "resend"): it is
 * due at once with its attempts kept, so a message that had spent its backoff gets exactly one
 * more attempt, with the same `webhook-id` for the receiver to deduplicate. Audited.
 */
export async function retryDelivery(
  db: Database,
  caller: Caller,
  endpointId: string,
  id: string,
  now: Date,
) {
  return db.transaction(async (tx) => {
    await requireEndpoint(tx, caller.orgId, endpointId);
    await deliveryRow(tx, endpointId, id);
    const [row] = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now, finishedAt: null })
      .where(eq(webhookDeliveries.id, id))
      .returning();
    await recordAudit(tx, {
      orgId: caller.orgId,
      actorUserId: caller.userId,
      action: 'webhook_delivery.retried',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      details: { delivery_id: id, event_id: row!.messageId, attempts: row!.attempts },
    });
    return present(row!, (await attemptsOf(tx, [id])).get(id) ?? []);
  });
}

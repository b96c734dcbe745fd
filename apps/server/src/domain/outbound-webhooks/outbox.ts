import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { webhookDeliveries, webhookEndpoints, webhookEventKeys } from '../../db/schema.ts';
import type { WebhookEventType } from './event-types.ts';

/** What an event carries besides its type and instant. */
export interface WebhookEvent {
  type: WebhookEventType;
  data: Record<string, unknown>;
}

const newMessageId = () => `msg_${randomUUID().replaceAll('-', '')}`;

/** The body every endpoint gets: `{type, timestamp, data}`; the stable id travels as `webhook-id`. */
export const bodyOf = (event: WebhookEvent, at: Date) =>
  JSON.stringify({ type: event.type, timestamp: at.toISOString(), data: event.data });

/**
 * Queues an event for every enabled endpoint of the org that wants its type, inside the
 * caller's transaction (an outbox): the change and its event are stored together or not at
 * all. Returns the event's id (`msg_…`), the same on every endpoint and every attempt.
 */
export async function enqueueWebhookEvent(
  tx: Pick<Database, 'select' | 'insert'>,
  orgId: string,
  event: WebhookEvent,
  now: Date,
  messageId = newMessageId(),
): Promise<string> {
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, eventTypes: webhookEndpoints.eventTypes })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.enabled, true)));
  const wanting = endpoints.filter(
    (e) => e.eventTypes.length === 0 || e.eventTypes.includes(event.type),
  );
  return queueFor(
    tx,
    orgId,
    wanting.map((e) => e.id),
    event,
    now,
    messageId,
  );
}

/** Queues the event for the given endpoints, due now; returns its id. */
export async function queueFor(
  tx: Pick<Database, 'insert'>,
  orgId: string,
  endpointIds: string[],
  event: WebhookEvent,
  now: Date,
  messageId = newMessageId(),
): Promise<string> {
  if (endpointIds.length === 0) return messageId;
  const body = bodyOf(event, now);
  await tx.insert(webhookDeliveries).values(
    endpointIds.map((endpointId) => ({
      orgId,
      endpointId,
      messageId,
      eventType: event.type,
      body,
      nextAttemptAt: now,
    })),
  );
  return messageId;
}

/**
 * Queues an event at most once for `key` (what it is about, e.g. an org's month and threshold):
 * the key is inserted first, in the caller's transaction, and a transaction that finds it taken
 * (a concurrent one, or a later one) queues nothing. Returns the event's id, or null when the key
 * was taken.
 */
export async function enqueueWebhookEventOnce(
  tx: Pick<Database, 'select' | 'insert'>,
  orgId: string,
  key: string,
  event: WebhookEvent,
  now: Date,
): Promise<string | null> {
  const messageId = newMessageId();
  const [taken] = await tx
    .insert(webhookEventKeys)
    .values({ key, orgId, messageId, createdAt: now })
    .onConflictDoNothing()
    .returning({ key: webhookEventKeys.key });
  if (taken === undefined) return null;
  return enqueueWebhookEvent(tx, orgId, event, now, messageId);
}

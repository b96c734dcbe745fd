import { sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { events, userDayAggregates } from '../db/schema.ts';
import { aggregate } from './aggregate.ts';
import type { AcceptedEvent } from './event-schema.ts';
import type { DrainBatch } from './queue.ts';

const CHUNK = 1000;

function row(orgId: string, e: AcceptedEvent): typeof events.$inferInsert {
  return {
    orgId,
    eventId: e.event_id,
    type: e.type,
    experimentId: e.experiment_id,
    userId: e.user_id,
    variant: e.variant,
    occurredAt: new Date(e.timestamp),
    receivedAt: new Date(e.received_at),
    latencyMs: e.latency_ms ?? null,
    inputTokens: e.input_tokens ?? null,
    outputTokens: e.output_tokens ?? null,
    costUsd: e.cost_usd ?? null,
    model: e.model ?? null,
    error: e.error ?? null,
    prompt: e.prompt ?? null,
    response: e.response ?? null,
    businessMetric: e.business_metric ?? null,
    value: e.value ?? null,
    metadata: e.metadata ?? null,
    isTest: e.is_test,
  };
}

/**
 * Writes drained batches into the event store and the per-user daily aggregates, inside the
 * drain transaction. An event already stored is skipped and not aggregated twice.
 */
export async function storeBatches(tx: Database, batches: readonly DrainBatch[]): Promise<void> {
  const fresh: AcceptedEvent[] = [];
  for (const batch of batches) {
    const byId = new Map(batch.events.map((e) => [e.event_id, e]));
    for (let i = 0; i < batch.events.length; i += CHUNK) {
      const inserted = await tx
        .insert(events)
        .values(batch.events.slice(i, i + CHUNK).map((e) => row(batch.orgId, e)))
        .onConflictDoNothing()
        .returning({ eventId: events.eventId });
      for (const r of inserted) fresh.push(byId.get(r.eventId) as AcceptedEvent);
    }
  }
  const rows = aggregate(fresh);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await tx
      .insert(userDayAggregates)
      .values(rows.slice(i, i + CHUNK))
      .onConflictDoUpdate({
        target: [
          userDayAggregates.experimentId,
          userDayAggregates.day,
          userDayAggregates.measure,
          userDayAggregates.variant,
          userDayAggregates.userId,
        ],
        set: {
          n: sql`${userDayAggregates.n} + excluded.n`,
          sum: sql`${userDayAggregates.sum} + excluded.sum`,
          sumSquares: sql`${userDayAggregates.sumSquares} + excluded.sum_squares`,
        },
      });
  }
}

import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { acceptedEvents, ingestQueue, usageCounters } from '../db/schema.ts';
import type { AcceptedEvent } from './event-schema.ts';
import type { DrainBatch, EnqueueRequest, EnqueueResult, IngestQueue } from './queue.ts';

/**
 * The default queue: a table in the same PostgreSQL (PGlite or server) as the event store, so
 * acceptance (ledger + queue + meter) is one transaction and draining (store + delete) another.
 */
export class PostgresQueue implements IngestQueue {
  constructor(private readonly db: Database) {}

  async enqueue({ orgId, events, month, allowance }: EnqueueRequest): Promise<EnqueueResult> {
    return this.db.transaction(async (tx) => {
      // The usage row is the per-org lock: concurrent batches of one org meter and de-duplicate in turn.
      await tx.insert(usageCounters).values({ orgId, month }).onConflictDoNothing();
      const [usage] = await tx
        .select({ events: usageCounters.events })
        .from(usageCounters)
        .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, month)))
        .for('update');
      const ids = [...new Set(events.map((e) => e.event_id))];
      const seen = new Set<string>();
      for (let i = 0; i < ids.length; i += 1000) {
        const found = await tx
          .select({ id: acceptedEvents.eventId })
          .from(acceptedEvents)
          .where(
            and(
              eq(acceptedEvents.orgId, orgId),
              inArray(acceptedEvents.eventId, ids.slice(i, i + 1000)),
            ),
          );
        for (const f of found) seen.add(f.id);
      }
      const fresh: AcceptedEvent[] = [];
      const duplicates: string[] = [];
      for (const e of events) {
        if (seen.has(e.event_id)) duplicates.push(e.event_id);
        else {
          seen.add(e.event_id);
          fresh.push(e);
        }
      }
      const room =
        allowance === null
          ? fresh.length
          : Math.max(0, Math.min(fresh.length, allowance - (usage?.events ?? 0)));
      const queued = fresh.slice(0, room);
      const refused = fresh.slice(room).map((e) => e.event_id);
      if (queued.length > 0) {
        for (let i = 0; i < queued.length; i += 5000) {
          await tx
            .insert(acceptedEvents)
            .values(queued.slice(i, i + 5000).map((e) => ({ orgId, eventId: e.event_id })));
        }
        await tx.insert(ingestQueue).values({ orgId, events: queued });
        await tx
          .update(usageCounters)
          .set({ events: sql`${usageCounters.events} + ${queued.length}` })
          .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, month)));
      }
      return { queued: queued.map((e) => e.event_id), duplicates, refused };
    });
  }

  async drain(
    maxBatches: number,
    store: (batches: DrainBatch[], tx: unknown) => Promise<void>,
  ): Promise<number> {
    return this.db.transaction(async (tx) => {
      // SKIP LOCKED lets several workers (processes) drain side by side without waiting.
      const rows = await tx
        .select()
        .from(ingestQueue)
        .orderBy(ingestQueue.seq)
        .limit(maxBatches)
        .for('update', { skipLocked: true });
      if (rows.length === 0) return 0;
      const batches = rows.map((r) => ({ orgId: r.orgId, events: r.events as AcceptedEvent[] }));
      await store(batches, tx);
      await tx.delete(ingestQueue).where(
        inArray(
          ingestQueue.seq,
          rows.map((r) => r.seq),
        ),
      );
      return batches.reduce((n, b) => n + b.events.length, 0);
    });
  }

  async depth(): Promise<number> {
    const [row] = await this.db
      .select({ n: sql<number>`coalesce(sum(jsonb_array_length(${ingestQueue.events})), 0)` })
      .from(ingestQueue);
    return Number(row?.n ?? 0);
  }
}

import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Database, rows } from '../db/connect.ts';
import { acceptedEvents, ingestQueue, usageCounters } from '../db/schema.ts';
import { drainStatement } from './drain-sql.ts';
import type { AcceptedEvent } from './event-schema.ts';
import type { EnqueueRequest, EnqueueResult, IngestQueue } from './queue.ts';

/** Rows the unmetered path spreads its increments over. */
const METER_SHARDS = 16;

function uniqueById(events: readonly AcceptedEvent[]): {
  unique: AcceptedEvent[];
  repeats: string[];
} {
  const seen = new Set<string>();
  const unique: AcceptedEvent[] = [];
  const repeats: string[] = [];
  for (const e of events) {
    if (seen.has(e.event_id)) repeats.push(e.event_id);
    else {
      seen.add(e.event_id);
      unique.push(e);
    }
  }
  return { unique, repeats };
}

/**
 * The default queue: a table in the same PostgreSQL (PGlite or server) as the event store, so
 * acceptance (ledger + queue + meter) is one transaction and draining (store + delete) another.
 */
export class PostgresQueue implements IngestQueue {
  constructor(private readonly db: Database) {}

  enqueue(request: EnqueueRequest): Promise<EnqueueResult> {
    return request.allowance === null
      ? this.enqueueUnmetered(request)
      : this.enqueueWithinAllowance(request);
  }

  /**
   * Nothing can be refused, so one statement does it all: the ledger insert keeps only new ids
   * (a concurrent retry of the same id loses the race and is a duplicate), the queue row holds
   * exactly those, and the meter rises by their number.
   */
  private async enqueueUnmetered({ orgId, events, month }: EnqueueRequest): Promise<EnqueueResult> {
    const { unique, repeats } = uniqueById(events);
    const [result] = await rows<{ fresh: string[] | null }>(
      this.db,
      sql`
        with fresh as (
          insert into accepted_events (org_id, event_id)
          select ${orgId}::uuid, id from jsonb_array_elements_text(${JSON.stringify(unique.map((e) => e.event_id))}::jsonb) as id
          on conflict do nothing
          returning event_id
        ),
        queued as (
          insert into ingest_queue (org_id, events)
          select ${orgId}::uuid, jsonb_agg(e)
          from jsonb_array_elements(${JSON.stringify(unique)}::jsonb) as e
          where e->>'event_id' in (select event_id from fresh)
          having count(*) > 0
          returning 1
        ),
        metered as (
          insert into usage_counters (org_id, month, shard, events)
          select ${orgId}::uuid, ${month}, ${Math.floor(Math.random() * METER_SHARDS)}::int, count(*) from fresh
          on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events
          returning 1
        )
        select (select jsonb_agg(event_id) from fresh) as fresh, (select count(*) from queued) as q, (select count(*) from metered) as m`,
    );
    const fresh = new Set(result?.fresh ?? []);
    return {
      queued: unique.filter((e) => fresh.has(e.event_id)).map((e) => e.event_id),
      duplicates: [
        ...unique.filter((e) => !fresh.has(e.event_id)).map((e) => e.event_id),
        ...repeats,
      ],
      refused: [],
    };
  }

  /** With an allowance the org's shard-0 usage row is the lock, so concurrent batches are cut in turn. */
  private async enqueueWithinAllowance({
    orgId,
    events,
    month,
    allowance,
  }: EnqueueRequest): Promise<EnqueueResult> {
    const { unique, repeats } = uniqueById(events);
    return this.db.transaction(async (tx) => {
      await tx.insert(usageCounters).values({ orgId, month, shard: 0 }).onConflictDoNothing();
      await tx
        .select({ events: usageCounters.events })
        .from(usageCounters)
        .where(
          and(
            eq(usageCounters.orgId, orgId),
            eq(usageCounters.month, month),
            eq(usageCounters.shard, 0),
          ),
        )
        .for('update');
      const [usage] = await tx
        .select({ events: sql<number>`coalesce(sum(${usageCounters.events}), 0)` })
        .from(usageCounters)
        .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, month)));
      const seen = new Set<string>();
      const ids = unique.map((e) => e.event_id);
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
      const fresh = unique.filter((e) => !seen.has(e.event_id));
      const room = Math.max(
        0,
        Math.min(fresh.length, (allowance ?? 0) - Number(usage?.events ?? 0)),
      );
      const queued = fresh.slice(0, room);
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
          .where(
            and(
              eq(usageCounters.orgId, orgId),
              eq(usageCounters.month, month),
              eq(usageCounters.shard, 0),
            ),
          );
      }
      return {
        queued: queued.map((e) => e.event_id),
        duplicates: [
          ...unique.filter((e) => seen.has(e.event_id)).map((e) => e.event_id),
          ...repeats,
        ],
        refused: fresh.slice(room).map((e) => e.event_id),
      };
    });
  }

  async drain(maxBatches: number): Promise<number> {
    const [result] = await rows<{ events: number }>(this.db, drainStatement(maxBatches));
    return Number(result?.events ?? 0);
  }

  async depth(): Promise<number> {
    const [row] = await this.db
      .select({ n: sql<number>`coalesce(sum(jsonb_array_length(${ingestQueue.events})), 0)` })
      .from(ingestQueue);
    return Number(row?.n ?? 0);
  }
}

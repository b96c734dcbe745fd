import { and, eq, inArray } from 'drizzle-orm';
import { type Database, rows } from '../../db/connect.ts';
import { events as eventsTable } from '../../db/schema.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { conflictingIds } from '../conflict-sql.ts';
import type { CopyEventStore } from '../copy-store.ts';
import type { AcceptedEvent } from '../event-schema.ts';
import { storeNew } from '../store-sql.ts';

/** One shard's part of a batch: its position and the events of users it holds, in batch order. */
export interface ShardPart {
  position: number;
  events: AcceptedEvent[];
}

/** The batch split by the shard of each event's user; parts in shard order. */
export function splitByShard(
  shards: ShardSet,
  orgId: string,
  events: readonly AcceptedEvent[],
): ShardPart[] {
  const parts = new Map<number, AcceptedEvent[]>();
  for (const e of events) {
    const position = shards.positionOf(orgId, e.user_id);
    const part = parts.get(position);
    if (part === undefined) parts.set(position, [e]);
    else part.push(e);
  }
  return [...parts].sort(([a], [b]) => a - b).map(([position, evs]) => ({ position, events: evs }));
}

/**
 * Stores on a shard the events it does not hold yet; returns the ids inserted. COPY first where
 * the shard has a pool (a batch holding a stored id fails whole and takes the statement path,
 * which skips what is there).
 */
export async function storeOnShard(
  db: Database,
  copy: CopyEventStore | null,
  orgId: string,
  events: readonly AcceptedEvent[],
): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  if (copy !== null && (await copy.store(orgId, '', null, events)))
    return new Set(events.map((e) => e.event_id));
  const [result] = await rows<{ fresh: string[] }>(db, storeNew(orgId, events));
  return new Set(result?.fresh ?? []);
}

/** Of `ids`, those the shard already holds for the org. */
export async function storedOnShard(
  db: Database,
  orgId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const found = await db
      .select({ id: eventsTable.eventId })
      .from(eventsTable)
      .where(
        and(eq(eventsTable.orgId, orgId), inArray(eventsTable.eventId, ids.slice(i, i + 1000))),
      );
    for (const f of found) seen.add(f.id);
  }
  return seen;
}

/** Of events the shard held already, those whose stored version says something else. */
export async function conflictsOnShard(
  db: Database,
  orgId: string,
  stored: readonly AcceptedEvent[],
): Promise<string[]> {
  if (stored.length === 0) return [];
  const found = await rows<{ event_id: string }>(db, conflictingIds(orgId, stored));
  return found.map((r) => r.event_id);
}

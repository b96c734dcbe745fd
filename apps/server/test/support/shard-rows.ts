import { eq } from 'drizzle-orm';
import { events } from '../../src/db/schema.ts';
import type { Harness } from './harness.ts';

/** The stored rows of an event id, from whichever shard holds them (one database without shards). */
export async function storedEventRows(h: Harness, eventId: string) {
  const found = await Promise.all(
    h.ctx.shards.all.map((s) => s.db.select().from(events).where(eq(events.eventId, eventId))),
  );
  return found.flat();
}

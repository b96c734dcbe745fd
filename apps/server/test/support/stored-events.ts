import type { SQL } from 'drizzle-orm';
import { events } from '../../src/db/schema.ts';
import { modelTextReader } from '../../src/domain/events-export/model-text.ts';
import type { Harness } from './harness.ts';

/**
 * The `events` rows `where` selects on every shard (the one database without shards), as a
 * test checks what ingest stored, on either log: on a
 * log with a queue (Kafka) an acknowledged event is stored when a fold consumes it, so the log
 * is folded first; with a text store the prompt and response come back from the store, as
 * every reader of the text gets them. On the database's log nothing is folded here: a test of
 * what the fold has not taken yet is unchanged there.
 */
export async function storedEvents(h: Pick<Harness, 'ctx'>, where: SQL | undefined) {
  if (h.ctx.eventLog.markAcknowledged !== undefined) await h.ctx.worker.foldAll();
  const found = (
    await Promise.all(h.ctx.shards.all.map((s) => s.db.select().from(events).where(where)))
  ).flat();
  const text = modelTextReader(h.ctx.modelText);
  return Promise.all(found.map(async (row) => ({ ...row, ...(await text(row)) })));
}

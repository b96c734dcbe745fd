import { sql } from 'drizzle-orm';
import { EVENT_COLUMN_LIST, EVENT_COLUMNS } from '../event-columns.ts';
import type { LogMessage } from './batch-producer.ts';

const RECORD_TYPE = sql.raw(
  ['org_id uuid', ...EVENT_COLUMNS.map((c) => `${c.column} ${c.type}`)].join(', '),
);
const COLUMNS = sql.raw(EVENT_COLUMN_LIST);

/**
 * Stores consumed events that are not stored yet (a message read twice, or produced twice by a
 * retry after a lost commit, is stored once). Their transaction joins the fold's queue through
 * the trigger on `events`, like any acceptance of the single-node log. Metering happened when
 * the events were accepted, so nothing is metered here.
 */
export function storeConsumed(messages: readonly LogMessage[]) {
  const records = messages.map(({ org_id, event }) => {
    const record: Record<string, unknown> = { org_id };
    for (const c of EVENT_COLUMNS) record[c.column] = c.value(event);
    return record;
  });
  return sql`insert into events (${COLUMNS})
    select ${COLUMNS}
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as e(${RECORD_TYPE})
    on conflict (org_id, event_id) do nothing`;
}

/** The next offset to read per partition of the topic, as the fold workers recorded it. */
export function inboxOffsets(topic: string) {
  return sql`select partition, next_offset::text as next_offset from ingest_inbox
    where topic = ${topic}`;
}

/** Moves the topic's partitions forward to the given next offsets (never back). */
export function advanceInbox(topic: string, next: ReadonlyMap<number, bigint>) {
  const records = [...next].map(([partition, offset]) => ({ partition, next: offset.toString() }));
  return sql`insert into ingest_inbox (topic, partition, next_offset)
    select ${topic}, r.partition, r.next::bigint
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(partition int, next text)
    on conflict (topic, partition) do update
      set next_offset = greatest(ingest_inbox.next_offset, excluded.next_offset), updated_at = now()`;
}

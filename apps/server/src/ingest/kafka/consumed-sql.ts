import { sql } from 'drizzle-orm';
import { EVENT_COLUMN_LIST, EVENT_COLUMNS } from '../event-columns.ts';

/**
 * The event's fields as a message carries them (the accepted event as JSON): each column under
 * its field's name, which is the column's but for `occurred_at`, sent as `timestamp`.
 */
const FIELD_OF: Record<string, string> = { occurred_at: 'timestamp' };
const MESSAGE_RECORD_TYPE = sql.raw(
  EVENT_COLUMNS.map((c) => `"${FIELD_OF[c.column] ?? c.column}" ${c.type}`).join(', '),
);
const MESSAGE_FIELDS = sql.raw(
  EVENT_COLUMNS.map((c) => `e."${FIELD_OF[c.column] ?? c.column}"`).join(', '),
);
const COLUMNS = sql.raw(EVENT_COLUMN_LIST);

/**
 * Stores consumed events that are not stored yet (a message read twice, or produced twice by a
 * retry after a lost commit, is stored once). Their transaction joins the fold's queue through
 * the trigger on `events`, like any acceptance of the single-node log. Events claimed at
 * acceptance were metered there, so nothing is metered here. `values` are envelopes (each a
 * `LogMessage` in JSON, its `events`, or the one `event` of a message from before envelopes),
 * mostly the messages' values as read: PostgreSQL unpacks them, with no record built and
 * written out again per event.
 */
export function storeConsumed(values: readonly string[]) {
  return sql`insert into events (${COLUMNS})
    select (m->>'org_id')::uuid, ${MESSAGE_FIELDS}
    from jsonb_array_elements(${`[${values.join(',')}]`}::jsonb) as m,
      jsonb_array_elements(coalesce(m->'events', jsonb_build_array(m->'event'))) as one,
      jsonb_to_record(one) as e(${MESSAGE_RECORD_TYPE})
    on conflict (org_id, event_id) do nothing`;
}

/**
 * Stores consumed events accepted without a claim (envelopes marked `meter_at_fold`) and, in
 * the same statement, meters what it stored: per org and UTC month of `received_at` (the
 * acceptance's instant, so the month the acceptance checked the allowance in), on meter row
 * `meterRow`. An event stored before inserts no row and is not metered again; the meter
 * commits or rolls back with the rows it counts.
 */
export function storeAndMeterConsumed(values: readonly string[], meterRow: number) {
  return sql`with stored as (${storeConsumed(values)} returning org_id, received_at)
    insert into usage_counters (org_id, month, shard, events)
    select s.org_id, to_char(s.received_at at time zone 'UTC', 'YYYY-MM'), ${meterRow}::int, count(*)
    from stored s group by 1, 2
    on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events`;
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

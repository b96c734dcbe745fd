import { sql } from 'drizzle-orm';
import { EVENT_COLUMN_LIST, EVENT_COLUMNS } from './event-columns.ts';
import type { AcceptedEvent } from './event-schema.ts';

const RECORD_TYPE = sql.raw(EVENT_COLUMNS.map((c) => `${c.column} ${c.type}`).join(', '));
const COLUMNS = sql.raw(EVENT_COLUMN_LIST);
const FIELDS = sql.raw(EVENT_COLUMNS.map((c) => c.column).join(', '));

/** Raises the org's meter for the month on one of its shards by `count` (a number or SQL). */
export function meterStatement(orgId: string, month: string, shard: number, count: unknown) {
  return sql`insert into usage_counters (org_id, month, shard, events)
    values (${orgId}::uuid, ${month}, ${shard}::int, ${count}::bigint)
    on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events`;
}

/** Inserts the events not stored yet (the primary key decides), returning the ids inserted. */
function insertNew(orgId: string, events: readonly AcceptedEvent[]) {
  const records = events.map((e) => {
    const record: Record<string, unknown> = {};
    for (const c of EVENT_COLUMNS) record[c.column] = c.value(e);
    return record;
  });
  return sql`insert into events (${COLUMNS})
      select ${orgId}::uuid, ${FIELDS}
      from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as e(${RECORD_TYPE})
      on conflict (org_id, event_id) do nothing
      returning event_id`;
}

/**
 * On a shard, where nothing is metered (the control database meters): stores the events not
 * there yet and returns the ids inserted as `fresh`, the rows the caller meters.
 */
export function storeNew(orgId: string, events: readonly AcceptedEvent[]) {
  return sql`with stored as (${insertNew(orgId, events)})
    select coalesce((select jsonb_agg(event_id) from stored), '[]'::jsonb) as fresh`;
}

/**
 * Stores events that are not there yet and meters them, in one statement: the primary key is
 * the idempotency check (a retried id loses the insert and is a duplicate), only inserted rows
 * are counted, and a crash before commit leaves neither. Returns the ids inserted.
 */
export function storeAndMeter(
  orgId: string,
  month: string,
  meterShard: number,
  events: readonly AcceptedEvent[],
) {
  return sql`
    with stored as (${insertNew(orgId, events)}),
    metered as (
      ${meterStatement(orgId, month, meterShard, sql`(select count(*) from stored)`)}
      returning 1
    )
    select coalesce((select jsonb_agg(event_id) from stored), '[]'::jsonb) as fresh,
      (select count(*) from metered)::int as metered`;
}

import { sql } from 'drizzle-orm';
import { EVENT_COLUMNS } from './event-columns.ts';
import type { AcceptedEvent } from './event-schema.ts';

/**
 * What an event says: every stored column but its id and when it was received (a retry is
 * received again). Compared as typed columns, so a timestamp's spelling or the order of
 * metadata keys does not make a retry a conflict.
 */
const SAID = EVENT_COLUMNS.filter((c) => c.column !== 'event_id' && c.column !== 'received_at');
const RECORD_TYPE = sql.raw(
  ['event_id text', ...SAID.map((c) => `${c.column} ${c.type}`)].join(', '),
);
/**
 * A cost the server priced is not something the event said: a retry priced again after a price
 * change is the same event. So `priced_by` is not compared, and `cost_usd` only when the caller
 * sent it.
 */
const saidAs = (alias: string) =>
  sql.raw(
    `(${SAID.filter((c) => c.column !== 'priced_by')
      .map((c) =>
        c.column === 'cost_usd'
          ? `case when ${alias}.priced_by is null then ${alias}.cost_usd end`
          : `${alias}.${c.column}`,
      )
      .join(', ')})`,
  );
const STORED = saidAs('s');
const SENT = saidAs('e');

/**
 * The ids among `events` (each already stored under its id) whose stored event says something
 * else: an event id reused for another event. The stored one stands; the caller reports them.
 */
export function conflictingIds(orgId: string, events: readonly AcceptedEvent[]) {
  const records = events.map((e) => {
    const record: Record<string, unknown> = { event_id: e.event_id };
    for (const c of SAID) record[c.column] = c.value(e);
    return record;
  });
  return sql`select e.event_id
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as e(${RECORD_TYPE})
    join events s on s.org_id = ${orgId}::uuid and s.event_id = e.event_id
    where ${STORED} is distinct from ${SENT}`;
}

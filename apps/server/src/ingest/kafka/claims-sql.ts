import { createHash } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { arrayLiteral } from '../../db/array-literal.ts';
import { type Database, rows } from '../../db/connect.ts';
import { contentOf } from '../event-id-claims.ts';
import type { AcceptedEvent } from '../event-schema.ts';

/** What an event says, as a SHA-256: two deliveries of one event have the same digest. */
export function digestOf(event: AcceptedEvent): string {
  return createHash('sha256').update(contentOf(event)).digest('hex');
}

/**
 * The claims of `ids` in `org`, one index probe per id: the LIMIT keeps the subquery from being
 * flattened into a join, which the planner may run as a scan of every claim of the org (it
 * does on a table it has no statistics for yet, and that scan grows with the org's claims).
 */
function claimsOf(orgId: string, ids: SQL) {
  return sql`select i.event_id, p.digest from ${ids} as i
    cross join lateral (
      select c.digest from event_claims c
      where c.org_id = ${orgId}::uuid and c.event_id = i.event_id limit 1
    ) p`;
}

/** The digests of the ids among `ids` the org has claimed already, by id. */
export async function claimedDigests(
  db: Database,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const slice = arrayLiteral(ids.slice(i, i + 1000));
    const claimed = await rows<{ event_id: string; digest: string }>(
      db,
      claimsOf(orgId, sql`(select unnest(${slice}::text[]) as event_id)`),
    );
    for (const c of claimed) found.set(c.event_id, c.digest);
  }
  return found;
}

/** What one claim statement answers: the ids claimed before it (with digests) and those it won. */
export interface ClaimOutcome {
  earlier: Map<string, string>;
  won: Set<string>;
}

/**
 * The input's rows the claim inserts. Without an allowance, all: the insert's conflict check
 * skips an id claimed before (its own index probe), so nothing is read first. With one, the
 * first `room` not claimed before, in the batch's order: the earlier claims are read first so
 * that an id claimed before takes no place in the allowance.
 */
function claimable(room: number | null) {
  if (room === null)
    return {
      earlier: sql`select null::text as event_id, null::text as digest where false`,
      rows: sql`select i.event_id, i.digest from input i`,
    };
  return {
    earlier: null,
    rows: sql`select i.event_id, i.digest from input i
      where not exists (select 1 from earlier e where e.event_id = i.event_id)
      order by i.ord limit ${room}::int`,
  };
}

/**
 * In one statement (one round trip): claims the events' ids the org has not claimed before
 * (with an allowance, the first `room` of them in the batch's order, reading which were
 * claimed before) and raises the org's meter on row `meterShard` by the number this statement
 * claimed. An id not won was claimed before or by a concurrent transaction meanwhile (which
 * it waited for); `earlier` holds the digests read before claiming (with an allowance only),
 * the caller reads the others'. The meter and the claims commit or roll back together.
 */
export async function claimAndMeter(
  db: Database,
  { orgId, month, meterShard }: { orgId: string; month: string; meterShard: number },
  events: readonly AcceptedEvent[],
  room: number | null,
): Promise<ClaimOutcome> {
  const ids = arrayLiteral(events.map((e) => e.event_id));
  const digests = arrayLiteral(events.map(digestOf));
  const claim = claimable(room);
  const [result] = await rows<{ earlier: Record<string, string> | null; won: string[] | null }>(
    db,
    sql`with input as (
        select c.event_id, c.digest, c.ord
        from unnest(${ids}::text[], ${digests}::text[]) with ordinality as c(event_id, digest, ord)
      ), earlier as (${claim.earlier ?? claimsOf(orgId, sql`input`)}), won as (
        insert into event_claims (org_id, event_id, digest)
        select ${orgId}::uuid, r.event_id, r.digest from (${claim.rows}) r
        on conflict (org_id, event_id) do nothing
        returning event_id
      ), metered as (
        insert into usage_counters (org_id, month, shard, events)
        select ${orgId}::uuid, ${month}, ${meterShard}::int, count(*) from won having count(*) > 0
        on conflict (org_id, month, shard) do update set events = usage_counters.events + excluded.events
        returning 1
      )
      select (select jsonb_object_agg(event_id, digest) from earlier) as earlier,
        (select jsonb_agg(event_id) from won) as won,
        (select count(*) from metered)::int as metered`,
  );
  return {
    earlier: new Map(Object.entries(result?.earlier ?? {})),
    won: new Set(result?.won ?? []),
  };
}

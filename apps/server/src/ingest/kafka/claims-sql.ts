import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Database, rows } from '../../db/connect.ts';
import { contentOf } from '../event-id-claims.ts';
import type { AcceptedEvent } from '../event-schema.ts';

/** What an event says, as a SHA-256: two deliveries of one event have the same digest. */
export function digestOf(event: AcceptedEvent): string {
  return createHash('sha256').update(contentOf(event)).digest('hex');
}

/** The digests of the ids among `ids` the org has claimed already, by id. */
export async function claimedDigests(
  db: Database,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const slice = ids.slice(i, i + 1000);
    const claimed = await rows<{ event_id: string; digest: string }>(
      db,
      sql`select event_id, digest from event_claims
        where org_id = ${orgId}::uuid and event_id in (select jsonb_array_elements_text(${JSON.stringify(slice)}::jsonb))`,
    );
    for (const c of claimed) found.set(c.event_id, c.digest);
  }
  return found;
}

/**
 * Claims the events' ids for the org; returns the ids this call claimed. An id another
 * transaction claimed meanwhile waits for it and is then skipped: a concurrent retry.
 */
export async function claim(
  db: Database,
  orgId: string,
  events: readonly AcceptedEvent[],
): Promise<Set<string>> {
  const records = events.map((e) => ({ event_id: e.event_id, digest: digestOf(e) }));
  const won = await rows<{ event_id: string }>(
    db,
    sql`insert into event_claims (org_id, event_id, digest)
      select ${orgId}::uuid, c.event_id, c.digest
      from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as c(event_id text, digest text)
      on conflict (org_id, event_id) do nothing
      returning event_id`,
  );
  return new Set(won.map((w) => w.event_id));
}

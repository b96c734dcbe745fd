import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Database, rows } from '../../db/connect.ts';

/**
 * This process's mark, the first part of every lease holder it writes: a hard stop gives back
 * its leases by the mark (process ids repeat across containers; this does not).
 */
const PROCESS_MARK = randomBytes(8).toString('hex');

/** A new holder name of this process: its mark, then a part of its own. */
export function leaseHolder(): string {
  return `${PROCESS_MARK}-${randomBytes(6).toString('hex')}`;
}

/**
 * A lease row instead of an advisory lock: PGlite has one connection that every query
 * shares, and a lease also frees itself when a holder dies (it expires).
 */
export async function withLease<T>(
  db: Database,
  name: string,
  ttlMs: number,
  now: Date,
  work: () => Promise<T>,
): Promise<T | null> {
  const holder = leaseHolder();
  const expires = new Date(now.getTime() + ttlMs);
  const [got] = await rows<{ holder: string }>(
    db,
    sql`insert into pipeline_leases (name, holder, expires_at) values (${name}, ${holder}, ${expires.toISOString()}::timestamptz)
        on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where pipeline_leases.expires_at < ${now.toISOString()}::timestamptz
        returning holder`,
  );
  if (got?.holder !== holder) return null;
  try {
    return await work();
  } finally {
    await db.execute(sql`delete from pipeline_leases where name = ${name} and holder = ${holder}`);
  }
}

/**
 * Deletes every lease this process holds; returns how many. For a hard stop, when the work
 * holding them will not reach its own release: the next runner then need not wait for expiry.
 */
export async function releaseLeasesOfThisProcess(db: Database): Promise<number> {
  const mine = `${PROCESS_MARK}-%`;
  const released = await rows<{ name: string }>(
    db,
    sql`delete from pipeline_leases where holder like ${mine} returning name`,
  );
  // An offline run this process was scoring is free to be taken over at once (see
  // docs/decisions/offline-evaluation.md#offline-runs): its scores so far are kept, the rest is resumed.
  const runs = await rows<{ id: string }>(
    db,
    sql`update offline_runs set scoring_expires_at = null
        where status = 'scoring' and scoring_holder like ${mine} returning id`,
  );
  return released.length + runs.length;
}

import { sql } from 'drizzle-orm';
import { type Database, rows } from '../db/connect.ts';

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
  const holder = `${process.pid}-${Math.random().toString(36).slice(2)}`;
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

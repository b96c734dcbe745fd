import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { Database } from './connect.ts';

export type DatabaseHealth =
  | { reachable: true; latency_ms: number }
  | { reachable: false; latency_ms: null; error: string };

/** One round trip to the database, timed. */
export async function pingDatabase(db: Database): Promise<DatabaseHealth> {
  const started = performance.now();
  try {
    await db.execute(sql`select 1`);
    return { reachable: true, latency_ms: Math.round((performance.now() - started) * 1000) / 1000 };
  } catch (error) {
    return {
      reachable: false,
      latency_ms: null,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

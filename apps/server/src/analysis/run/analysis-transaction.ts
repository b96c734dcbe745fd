import { sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';

/**
 * Runs `work` in a transaction with the planner settings every analysis statement wants, set
 * in one round trip:
 * - no nested loops: every join is between per-user sets (or a per-user set and a few rows);
 *   before autovacuum has analysed freshly loaded aggregates the planner estimates one row each
 *   and picks nested loops, quadratic in users (1.4 s at 800 users, hours at a million);
 * - no JIT: a forbidden nested loop (the cross join with one row of bin edges) still plans,
 *   priced at 1e10, and that price would buy seconds of compilation for a sub-second statement;
 * - `work_mem` 128 MB: one hash table of a row per user would spill to disk at PostgreSQL's
 *   4 MB default from about 20,000 users on;
 * - no parallel workers: the nightly run takes its parallelism from several experiments at
 *   once, and workers inside a statement would hash each user twice (partial and final);
 * - statements bounded at 30 minutes, not the request paths' ARBITER_DATABASE_TIMEOUT_MS: one
 *   aggregate over a million users takes tens of seconds on a busy server.
 * `snapshot` makes it repeatable read, for work of several statements that must see the same
 * rows (a quantile's ranks come from one count and are read by the next statement).
 * `temporaryRows` is for work that keeps per-user rows in a temporary table (a shard's two
 * phases): `temp_buffers` 128 MB, like `work_mem`, keeps them in the backend's memory (a
 * million users' values), where at PostgreSQL's 8 MB default some 100,000 users' rows already
 * overflow to files, written out and read back. Always the same value: once a session has used
 * a temporary table PostgreSQL refuses to change it.
 */
const TEMPORARY_ROWS = sql`, set_config('temp_buffers', '128MB', true)`;

export async function inAnalysisTransaction<T>(
  db: Database,
  work: (tx: Database) => Promise<T>,
  options: { snapshot?: boolean; temporaryRows?: boolean } = {},
): Promise<T> {
  return db.transaction(async (tx) => {
    if (options.snapshot) await tx.execute(sql`set transaction isolation level repeatable read`);
    await tx.execute(sql`select set_config('enable_nestloop', 'off', true),
      set_config('jit', 'off', true), set_config('work_mem', '128MB', true),
      set_config('max_parallel_workers_per_gather', '0', true),
      set_config('statement_timeout', '30min', true)${options.temporaryRows ? TEMPORARY_ROWS : sql``}`);
    return work(tx as unknown as Database);
  });
}

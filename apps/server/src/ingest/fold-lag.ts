import type { Context } from '../context.ts';
import { type Database, rows, toNumber } from '../db/connect.ts';
import { foldPosition, unfoldedCount } from './fold-sql.ts';

/** One database's fold lag in whole seconds, on its own clock. */
async function lagOf(db: Database): Promise<number> {
  const [row] = await rows<{ now: Date | string; folded_through: Date | string }>(db, foldPosition);
  if (!row) return 0;
  const lagMs = new Date(row.now).getTime() - new Date(row.folded_through).getTime();
  return Math.max(0, Math.floor(lagMs / 1000));
}

/**
 * The answers of the shards that gave one: a shard that is down is the health route's to
 * report, and must not take every process out of rotation (its users get 503s, the others
 * go on). Throws only when no shard answers.
 */
async function fromAnswering<T>(ctx: Pick<Context, 'shards'>, read: (db: Database) => Promise<T>) {
  const settled = await Promise.allSettled(ctx.shards.all.map((s) => read(s.db)));
  const answers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = settled.find((s) => s.status === 'rejected');
  if (answers.length === 0 && failure !== undefined) throw failure.reason;
  return answers;
}

/**
 * How far the fold is behind, in whole seconds: the age of the oldest stored transaction not
 * yet folded on the shard furthest behind, 0 when none waits. One indexed read per shard.
 */
export async function foldLagSeconds(ctx: Pick<Context, 'shards'>): Promise<number> {
  return Math.max(0, ...(await fromAnswering(ctx, lagOf)));
}

/** The fold's backlog for the metrics: stored events not yet folded, and the lag in seconds. */
export async function foldBacklog(
  ctx: Pick<Context, 'shards'>,
): Promise<{ events: number; lagSeconds: number }> {
  const counts = await fromAnswering(ctx, async (db) => {
    const [unfolded] = await rows<{ n: unknown }>(db, unfoldedCount);
    return toNumber(unfolded?.n ?? 0);
  });
  return { events: counts.reduce((a, b) => a + b, 0), lagSeconds: await foldLagSeconds(ctx) };
}

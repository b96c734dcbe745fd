import type { Context } from '../context.ts';
import { rows, toNumber } from '../db/connect.ts';
import { foldPosition, unfoldedCount } from './fold-sql.ts';

/**
 * How far the fold is behind, in whole seconds: the age of the oldest stored transaction not
 * yet folded, 0 when none waits. One indexed read, on the database's own clock.
 */
export async function foldLagSeconds(ctx: Pick<Context, 'db'>): Promise<number> {
  const [row] = await rows<{ now: Date | string; folded_through: Date | string }>(
    ctx.db,
    foldPosition,
  );
  if (!row) return 0;
  const lagMs = new Date(row.now).getTime() - new Date(row.folded_through).getTime();
  return Math.max(0, Math.floor(lagMs / 1000));
}

/** The fold's backlog for the metrics: stored events not yet folded, and the lag in seconds. */
export async function foldBacklog(
  ctx: Pick<Context, 'db'>,
): Promise<{ events: number; lagSeconds: number }> {
  const [unfolded] = await rows<{ n: unknown }>(ctx.db, unfoldedCount);
  return { events: toNumber(unfolded?.n ?? 0), lagSeconds: await foldLagSeconds(ctx) };
}

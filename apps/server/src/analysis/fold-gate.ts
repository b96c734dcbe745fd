import type { Context } from '../context.ts';
import { rows } from '../db/connect.ts';
import { foldPosition } from '../ingest/fold-sql.ts';
import { foldUntilStored } from '../ingest/fold-until-stored.ts';
import { AnalysisError } from './outcomes.ts';

const POLL_MS = 50;
/** Retry-After bounds: at least a second, at most a minute (the fold may be stuck). */
const MIN_RETRY_S = 1;
const MAX_RETRY_S = 60;

/**
 * The gate reads the fold's position and folds when no one else is: the database, the worker,
 * and the log (whose queue, when it has one, holds acknowledged events the position misses).
 */
export type FoldGateDeps = Pick<Context, 'db' | 'worker' | 'eventLog'>;

async function positionOf(ctx: Pick<Context, 'db'>): Promise<{ now: Date; foldedThrough: Date }> {
  const [row] = await rows<{ now: Date | string; folded_through: Date | string }>(
    ctx.db,
    foldPosition,
  );
  return {
    now: new Date(row?.now as string),
    foldedThrough: new Date(row?.folded_through as string),
  };
}

function foldBehind(cut: Date, seen: Date): AnalysisError {
  const lag = Math.ceil((cut.getTime() - seen.getTime()) / 1000);
  return new AnalysisError(
    'fold-behind',
    `Events accepted up to ${cut.toISOString()} are not all folded into the aggregates yet (folded through ${seen.toISOString()}); an analysis now would leave them out, so none was computed or stored. Retry shortly.`,
    { folded_through: seen.toISOString() },
    Math.min(MAX_RETRY_S, Math.max(MIN_RETRY_S, lag)),
  );
}

/**
 * The gate before an analysis reads the aggregates: waits until every event acknowledged before
 * this call (by the database's clock) is folded, so a run is never computed from a window with
 * accepted events missing. Meanwhile it folds too, when no other fold is running, so it never
 * waits on a worker that is busy elsewhere or not running in this process. A log with a queue
 * (Kafka) is first folded until what it acknowledged before the call is stored. Returns the fold
 * position it saw, which the run stores. Past `budgetMs` it throws `fold-behind` (503) with a
 * Retry-After of the fold's lag, and the caller stores nothing.
 */
export async function awaitFold(ctx: FoldGateDeps, budgetMs: number): Promise<Date> {
  const deadline = performance.now() + budgetMs;
  let { now: cut, foldedThrough: seen } = await positionOf(ctx);
  if (!(await foldUntilStored(ctx.eventLog, ctx.worker, deadline))) {
    throw foldBehind(cut, (await positionOf(ctx)).foldedThrough);
  }
  if (ctx.eventLog.markAcknowledged !== undefined) {
    // Stored from the log's queue only now, after the first cut: the cut moves to this moment.
    ({ now: cut, foldedThrough: seen } = await positionOf(ctx));
  }
  while (seen < cut) {
    if (performance.now() >= deadline) throw foldBehind(cut, seen);
    const folded = await ctx.worker.foldOnce({ ifFree: true });
    if (folded.busy || folded.events === 0)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    seen = (await positionOf(ctx)).foldedThrough;
  }
  return seen;
}

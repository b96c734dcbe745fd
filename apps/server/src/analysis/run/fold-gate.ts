import type { Context } from '../../context.ts';
import { rows } from '../../db/connect.ts';
import { foldPosition } from '../../ingest/fold-sql.ts';
import { foldUntilStored } from '../../ingest/fold-until-stored.ts';
import { AnalysisError } from '../outcomes.ts';

const POLL_MS = 50;
/** Retry-After bounds: at least a second, at most a minute (the fold may be stuck). */
const MIN_RETRY_S = 1;
const MAX_RETRY_S = 60;

/**
 * The gate reads every shard's fold position and folds when no one else is: the shards, the
 * worker, and the log (whose queue, when it has one, holds acknowledged events the positions miss).
 */
export type FoldGateDeps = Pick<Context, 'shards' | 'worker' | 'eventLog'>;

type Position = { now: Date; foldedThrough: Date };
/** A shard's position, or null for a shard of several that does not answer. */
type Seen = Position | null;

/**
 * Each shard's position on its own clock (servers' clocks need not agree). Of several shards,
 * one that does not answer is left out (null): every run that reads it fails on its own, saying
 * which shard, and stores nothing, so the gate need not hold the others back. The one database
 * of an unsharded deployment still fails the gate, as before shards.
 */
async function positionsOf(ctx: Pick<Context, 'shards'>): Promise<Seen[]> {
  const several = ctx.shards.sharded;
  const seen = await Promise.all(
    ctx.shards.all.map(async (shard) => {
      try {
        const [row] = await rows<{ now: Date | string; folded_through: Date | string }>(
          shard.db,
          foldPosition,
        );
        return {
          now: new Date(row?.now as string),
          foldedThrough: new Date(row?.folded_through as string),
        };
      } catch (error) {
        if (several) return null;
        throw error;
      }
    }),
  );
  if (!seen.some((p) => p !== null)) throw new Error('no shard of event data answers');
  return seen;
}

/** The earliest position of those shards that have not folded through their own cut yet. */
function behind(cuts: readonly Seen[], seen: readonly Seen[]): Date | null {
  const late = seen.filter(
    (p, i): p is Position => p !== null && cuts[i] != null && p.foldedThrough < cuts[i].now,
  );
  if (late.length === 0) return null;
  return new Date(Math.min(...late.map((p) => p.foldedThrough.getTime())));
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
 * this call (by each shard's clock) is folded on every shard, so a run is never computed from a window with
 * accepted events missing. Meanwhile it folds too, when no other fold is running, so it never
 * waits on a worker that is busy elsewhere or not running in this process. A log with a queue
 * (Kafka) is first folded until what it acknowledged before the call is stored. Returns the fold
 * position it saw, which the run stores. Past `budgetMs` it throws `fold-behind` (503) with a
 * Retry-After of the fold's lag, and the caller stores nothing.
 */
export async function awaitFold(ctx: FoldGateDeps, budgetMs: number): Promise<Date> {
  const deadline = performance.now() + budgetMs;
  let cuts = await positionsOf(ctx);
  if (!(await foldUntilStored(ctx.eventLog, ctx.worker, deadline))) {
    throw foldBehind(latest(cuts), earliest(await positionsOf(ctx)));
  }
  // Stored from the log's queue only now, after the first cut: the cut moves to this moment.
  if (ctx.eventLog.markAcknowledged !== undefined) cuts = await positionsOf(ctx);
  const cut = latest(cuts);
  let seen = cuts;
  for (let late = behind(cuts, seen); late !== null; late = behind(cuts, seen)) {
    if (performance.now() >= deadline) throw foldBehind(cut, late);
    const folded = await ctx.worker.foldOnce({ ifFree: true });
    if (folded.busy || folded.events === 0)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    seen = await positionsOf(ctx);
  }
  return earliest(seen);
}

function latest(positions: readonly Seen[]): Date {
  const answering = positions.filter((p): p is Position => p !== null);
  return new Date(Math.max(...answering.map((p) => p.now.getTime())));
}

function earliest(positions: readonly Seen[]): Date {
  const answering = positions.filter((p): p is Position => p !== null);
  return new Date(Math.min(...answering.map((p) => p.foldedThrough.getTime())));
}

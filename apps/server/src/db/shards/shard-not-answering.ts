import { isShardUnreachable } from './shard-unreachable.ts';

/**
 * Work that needed some shards met one that does not answer (down, restarting, unreachable).
 * A `read` over every shard answers nothing rather than part of the users; a `write` of a batch
 * stored and metered the other shards' parts, not this one's, and the client is to send the
 * batch again (its stored events come back as duplicates, metered once). Either way the edge
 * answers 503 with `Retry-After`.
 */
export class ShardNotAnswering extends Error {
  constructor(
    readonly positions: readonly number[],
    cause: unknown,
    readonly during: 'read' | 'write' = 'read',
  ) {
    super(`event data shard(s) ${positions.join(', ')} did not answer`, { cause });
    this.name = 'ShardNotAnswering';
  }
}

export function isShardNotAnswering(error: unknown): error is ShardNotAnswering {
  return error instanceof ShardNotAnswering;
}

/**
 * The answer of each read, in order; when any failed, the first failure that is not a shard's
 * silence, else one `ShardNotAnswering` naming every silent shard. One database alone is not a
 * shard set: its failure is thrown as it came, as before shards existed.
 */
export async function answersOfShards<T>(reads: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(reads);
  const failed = settled.flatMap((s, position) =>
    s.status === 'rejected' ? [{ position, error: s.reason as unknown }] : [],
  );
  if (failed.length === 0) return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  const other = failed.find((f) => reads.length < 2 || !isShardUnreachable(f.error));
  if (other !== undefined) throw other.error;
  throw new ShardNotAnswering(
    failed.map((f) => f.position),
    driverError(failed[0]?.error),
  );
}

/**
 * The innermost cause: the driver's error ("connect ECONNREFUSED …"). Drizzle's wrapper quotes
 * the statement and its parameters, which must not reach a log with the warning.
 */
function driverError(error: unknown): unknown {
  let at = error;
  for (let depth = 0; depth < 8 && at instanceof Error && at.cause instanceof Error; depth++)
    at = at.cause;
  return at;
}

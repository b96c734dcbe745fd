import { ShardUnreadable } from '../shards/shard-unreadable.ts';

/**
 * Why a read failed, as a health view may show it: which shard, when a shard failed, and the
 * innermost cause's message (the driver's: "connect ECONNREFUSED …", "terminating connection
 * …"). Drizzle's wrapper quotes the statement and its parameters in its own message; the
 * driver's message quotes neither.
 */
export function failureReason(error: unknown): string {
  let at: unknown = error;
  const seen = new Set<unknown>();
  while (at instanceof Error && !(at instanceof ShardUnreadable) && !seen.has(at)) {
    seen.add(at);
    if (!(at.cause instanceof Error)) break;
    at = at.cause;
  }
  return at instanceof Error ? at.message : String(at);
}

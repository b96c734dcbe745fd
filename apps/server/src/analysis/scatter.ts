import type { Database } from '../db/connect.ts';
import type { ShardSet } from '../db/shard-set.ts';

/**
 * `read` on every shard at once, the answers in shard order. One shard's failure fails the
 * whole read: an analysis never goes on from part of the users.
 */
export function scatter<T>(shards: ShardSet, read: (db: Database) => Promise<T>): Promise<T[]> {
  return Promise.all(shards.all.map((handle) => read(handle.db)));
}

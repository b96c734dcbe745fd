import type { Database } from '../../db/connect.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { failureReason } from '../run/failure-reason.ts';
import { ShardUnreadable } from './shard-unreadable.ts';

/**
 * `read` on every shard at once, the answers in shard order. One shard's failure fails the
 * whole read, naming the shard: an analysis never goes on from part of the users.
 */
export function scatter<T>(
  shards: ShardSet,
  read: (db: Database, position: number) => Promise<T>,
): Promise<T[]> {
  return Promise.all(
    shards.all.map((handle, position) =>
      read(handle.db, position).catch((error: unknown) => {
        throw new ShardUnreadable(position, failureReason(error), error);
      }),
    ),
  );
}

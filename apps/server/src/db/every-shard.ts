import type { Database } from './connect.ts';

/** The databases holding event data: `ctx.shards`, or one database standing alone. */
export type EventShards = { readonly all: readonly { db: Database }[] };

/**
 * One read on every shard at once, answers in shard order. A reader of per-user rows merges
 * them by addition: a user's rows are all on one shard, so counts of distinct users add up.
 */
export function onEveryShard<T>(
  shards: EventShards,
  read: (db: Database) => Promise<T>,
): Promise<T[]> {
  return Promise.all(shards.all.map((s) => read(s.db)));
}

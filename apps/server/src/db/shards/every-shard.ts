import type { Database } from '../connect.ts';
import { answersOfShards } from './shard-not-answering.ts';

/** The databases holding event data: `ctx.shards`, or one database standing alone. */
export type EventShards = { readonly all: readonly { db: Database }[] };

/**
 * One read on every shard at once, answers in shard order. A reader of per-user rows merges
 * them by addition: a user's rows are all on one shard, so counts of distinct users add up.
 * Of several shards, one that does not answer fails the read with `ShardNotAnswering` (a 503
 * at the edge), never a sum over the others.
 */
export function onEveryShard<T>(
  shards: EventShards,
  read: (db: Database, position: number) => Promise<T>,
): Promise<T[]> {
  return answersOfShards(shards.all.map((s, position) => read(s.db, position)));
}

import { shardOf } from '@arbiter/bucketing';
import type { DatabaseHandle } from '../connect.ts';

/**
 * Where event data lives: events, the per-user daily aggregates, judge scores and quarantine.
 * Everything else (orgs, experiments, keys, audit, runs, metering) stays in the control
 * database. Without ARBITER_SHARD_URLS there is one shard, the control database itself, and
 * every reader and writer behaves as before shards existed.
 */
export interface ShardSet {
  /** Every shard in its fixed order: position i is `all[i]`; never reordered once set up. */
  readonly all: readonly DatabaseHandle[];
  /** More than one shard: readers scatter and merge, writers split batches by user. */
  readonly sharded: boolean;
  /** The position of the shard that holds a user's event data (the frozen `shardOf`). */
  positionOf(orgId: string, userId: string): number;
  /** The shard that holds a user's event data. */
  of(orgId: string, userId: string): DatabaseHandle;
  /** Each shard's host, port and database, by position (never its credentials). */
  readonly addresses: readonly string[];
}

/** How the one shard of a deployment without ARBITER_SHARD_URLS is named. */
export const CONTROL_DATABASE = 'the control database';

/** The shard set of `handles`, in the given order (the order ARBITER_SHARD_URLS lists them). */
export function shardSetOf(
  handles: readonly DatabaseHandle[],
  addresses: readonly string[] = handles.map(() => CONTROL_DATABASE),
): ShardSet {
  if (handles.length === 0) throw new RangeError('a shard set needs at least one database');
  const sharded = handles.length > 1;
  const positionOf = (orgId: string, userId: string) =>
    sharded ? shardOf(orgId, userId, handles.length) : 0;
  return {
    all: handles,
    sharded,
    addresses,
    positionOf,
    of: (orgId, userId) => handles[positionOf(orgId, userId)] as DatabaseHandle,
  };
}

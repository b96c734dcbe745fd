import { hashUser } from './bucket.ts';

/**
 * Shard hash version 1, frozen: the shard that holds a user's event data is
 * murmur3_x86_32(UTF-8("shard:" + orgId + ":" + userId), seed 0) mod shardCount. One user's rows
 * of every experiment of the org share a shard, so per-user work (CUPED's pre-period, org-wide
 * metrics) stays on one server. The `shard:` prefix keeps the split independent of any
 * experiment's bucketing, whose key is its own salt. With the count doubled, shard s splits into
 * s and s + count (a hash mod 2n is the hash mod n, or that plus n), the growth path that keeps
 * every user's rows within one old shard's split.
 */
export function shardOf(orgId: string, userId: string, shardCount: number): number {
  if (!Number.isInteger(shardCount) || shardCount < 1)
    throw new RangeError(`shardCount must be a positive integer, not ${shardCount}`);
  return hashUser(`shard:${orgId}`, userId) % shardCount;
}

import { type Database, rows } from '../../db/connect.ts';
import { inboxOffsets } from './consumed-sql.ts';

/** The next offset to read per partition of the topic, as one shard's folds recorded it. */
export async function shardInbox(db: Database, topic: string): Promise<Map<number, bigint>> {
  const stored = await rows<{ partition: number; next_offset: string }>(db, inboxOffsets(topic));
  return new Map(stored.map((s) => [s.partition, BigInt(s.next_offset)]));
}

/**
 * Per partition, the lowest next offset over the shards' inboxes: everything before it is
 * stored on every shard it belongs to. A partition some shard has no row for is left out (read
 * from its start; each shard skips what its own inbox passed).
 */
export function lowestOver(inboxes: readonly ReadonlyMap<number, bigint>[]): Map<number, bigint> {
  const [first, ...rest] = inboxes;
  const lowest = new Map<number, bigint>();
  for (const [partition, offset] of first ?? []) {
    let low = offset;
    for (const inbox of rest) {
      const other = inbox.get(partition);
      if (other === undefined) {
        low = -1n;
        break;
      }
      if (other < low) low = other;
    }
    if (low >= 0n) lowest.set(partition, low);
  }
  return lowest;
}

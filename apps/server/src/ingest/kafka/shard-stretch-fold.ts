import { type Database, rows } from '../../db/connect.ts';
import type { FoldOptions, FoldResult } from '../event-log.ts';
import { foldIsolating, isDataError } from '../fold-isolation.ts';
import {
  type FoldRow,
  foldResultOf,
  foldStatement,
  lockWatermark,
  lockWatermarkIfFree,
} from '../fold-sql.ts';
import { anyMeterRow } from '../meter-lock.ts';
import { advanceInbox, storeAndMeterConsumed, storeConsumed } from './consumed-sql.ts';
import { shardInbox } from './shard-inbox.ts';
import type { ConsumedMessage } from './stretch-parts.ts';

export interface ShardStretch {
  topic: string;
  /** This shard's messages of the stretch. */
  part: readonly ConsumedMessage[];
  /** Per partition, the offset past the whole stretch (every shard records it). */
  next: ReadonlyMap<number, bigint>;
}

/**
 * One shard's part of a stretch, in one transaction on that shard: the fold's lock, the
 * messages its inbox has not passed stored, its inbox moved past the stretch, and the fold of
 * its queue. So exactly-once holds per shard: a part stored is recorded as stored in the same
 * commit, and a part redelivered is skipped by the inbox (or by `(org_id, event_id)`). Events
 * accepted without a claim are metered in that commit too, by the rows their store inserted.
 * A row the fold cannot take makes the part fold again row by row, setting that row aside.
 */
export async function foldShardStretch(
  db: Database,
  stretch: ShardStretch,
  maxTransactions: number,
  options: FoldOptions,
): Promise<FoldResult> {
  try {
    return await foldInTransaction(db, stretch, maxTransactions, options, false);
  } catch (error) {
    if (!isDataError(error)) throw error;
    return await foldInTransaction(db, stretch, maxTransactions, options, true);
  }
}

async function foldInTransaction(
  db: Database,
  { topic, part, next }: ShardStretch,
  maxTransactions: number,
  options: FoldOptions,
  isolating: boolean,
): Promise<FoldResult> {
  const lock = options.ifFree ? lockWatermarkIfFree : lockWatermark;
  return db.transaction(async (tx) => {
    if ((await rows(tx, lock)).length === 0) return { events: 0, quarantined: [], busy: true };
    if (next.size > 0) {
      // Read under the lock: another worker's fold of the same partition has committed by now.
      const passed = await shardInbox(tx, topic);
      const fresh = part.filter(
        ({ record }) => record.offset >= (passed.get(record.partition) ?? 0n),
      );
      const metered = fresh.filter((m) => !m.meterAtFold).map((m) => m.value);
      const unmetered = fresh.filter((m) => m.meterAtFold).map((m) => m.value);
      if (metered.length > 0) await tx.execute(storeConsumed(metered));
      if (unmetered.length > 0) await tx.execute(storeAndMeterConsumed(unmetered, anyMeterRow()));
      await tx.execute(advanceInbox(topic, next));
    }
    if (isolating) return foldIsolating(tx, maxTransactions);
    const [result] = await rows<FoldRow>(tx, foldStatement(maxTransactions));
    return foldResultOf(result, maxTransactions);
  });
}

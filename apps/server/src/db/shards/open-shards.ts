import { type ConnectionLostHandler, type DatabaseHandle, openDatabase } from '../connect.ts';
import { shardAddress } from './shard-address.ts';
import { checkShardSet } from './shard-registry.ts';
import { type ShardSet, shardSetOf } from './shard-set.ts';

/** A shard opened by someone else (a test's fresh database), with how it is named. */
export interface OpenShard {
  handle: DatabaseHandle;
  address: string;
}

/**
 * Opens and migrates every shard of ARBITER_SHARD_URLS, all at once (each takes the migration
 * lock of its own server). A shard that fails to open closes the others: a process starts only
 * with every shard answering, so it can check the set.
 */
export async function openConfiguredShards(
  config: { shardUrls: readonly string[]; databaseTimeoutMs: number; traces: boolean },
  onConnectionLost: ConnectionLostHandler,
): Promise<OpenShard[]> {
  const opened = await Promise.allSettled(
    config.shardUrls.map((url) =>
      openDatabase(
        { kind: 'postgres', url },
        onConnectionLost,
        config.databaseTimeoutMs,
        config.traces,
      ),
    ),
  );
  const failed = opened.find((o) => o.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(opened.map((o) => (o.status === 'fulfilled' ? o.value.close() : null)));
    throw failed.reason;
  }
  return opened.map((o, i) => ({
    handle: (o as PromiseFulfilledResult<DatabaseHandle>).value,
    address: shardAddress(config.shardUrls[i] as string),
  }));
}

/**
 * The shard set of a process: the given shards, checked against the set the control database
 * recorded (recorded at the first start), or the control database alone when there are none.
 */
export async function shardSetFor(
  control: DatabaseHandle,
  shards: readonly OpenShard[],
): Promise<ShardSet> {
  await checkShardSet(
    control.db,
    shards.map((s) => ({ db: s.handle.db, address: s.address })),
  );
  if (shards.length === 0) return shardSetOf([control]);
  return shardSetOf(
    shards.map((s) => s.handle),
    shards.map((s) => s.address),
  );
}

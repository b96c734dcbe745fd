import { type DatabaseHealth, pingDatabase } from '../../db/health.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { unfoldedFold } from '../ingest-health.ts';

export type ShardHealth = DatabaseHealth & {
  position: number;
  /** Host, port and database: never the URL's credentials. */
  address: string;
  /** How long the shard's oldest unfolded event has waited; null when the shard does not answer. */
  fold_lag_seconds: number | null;
  unfolded_events: number | null;
};

/** Every shard, asked at once: whether it answers and how far its own fold is behind. */
export async function shardHealth(shards: ShardSet, now: Date): Promise<ShardHealth[]> {
  return Promise.all(
    shards.all.map(async (shard, position) => {
      const address = shards.addresses[position] ?? '';
      const ping = await pingDatabase(shard.db);
      if (!ping.reachable)
        return { position, address, ...ping, fold_lag_seconds: null, unfolded_events: null };
      const fold = await unfoldedFold(shard.db, now).catch(() => null);
      return {
        position,
        address,
        ...ping,
        fold_lag_seconds: fold?.fold_lag_seconds ?? null,
        unfolded_events: fold?.unfolded_events ?? null,
      };
    }),
  );
}

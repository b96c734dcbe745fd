import { and, avg, between, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { judgeScores } from '../../db/schema.ts';
import { type EventShards, onEveryShard } from '../../db/shards/every-shard.ts';

type UserValue = { userId: string; value: number };

/** User ids in byte order (`collate "C"`), the same on one database and merged over several. */
const byIdBytes = (a: UserValue, b: UserValue) =>
  Buffer.compare(Buffer.from(a.userId), Buffer.from(b.userId));

/**
 * Per variant, each scored user's mean judge score over the window (inclusive UTC dates,
 * YYYY-MM-DD, like the other metrics' windows): the user is the unit of analysis. A user's
 * scores are all on the user's shard, so each shard's means are whole. Users come sorted by
 * the bytes of their id so a seeded resample sees them in a stable order.
 */
export async function judgeUserValues(
  shards: EventShards,
  experimentId: string,
  metric: string,
  windowStart: string,
  windowEnd: string,
): Promise<Map<string, UserValue[]>> {
  const perShard = await onEveryShard(shards, (db) =>
    shardValues(db, experimentId, metric, windowStart, windowEnd),
  );
  const arms = new Map<string, UserValue[]>();
  for (const row of perShard.flat()) {
    const list = arms.get(row.variant) ?? [];
    list.push({ userId: row.userId, value: Number(row.value) });
    arms.set(row.variant, list);
  }
  if (perShard.length > 1) for (const list of arms.values()) list.sort(byIdBytes);
  return arms;
}

function shardValues(
  db: Database,
  experimentId: string,
  metric: string,
  windowStart: string,
  windowEnd: string,
) {
  return db
    .select({
      variant: judgeScores.variant,
      userId: judgeScores.userId,
      value: avg(judgeScores.score),
    })
    .from(judgeScores)
    .where(
      and(
        eq(judgeScores.experimentId, experimentId),
        eq(judgeScores.metric, metric),
        between(judgeScores.day, windowStart, windowEnd),
      ),
    )
    .groupBy(judgeScores.variant, judgeScores.userId)
    .orderBy(judgeScores.variant, sql`${judgeScores.userId} collate "C"`);
}

import { and, asc, eq, gte, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { userDayStats } from '../db/schema.ts';
import { type EventShards, onEveryShard } from '../db/shards/every-shard.ts';

const exposed = sql`${userDayStats.exposures} > 0`;

/** One shard's exposures per UTC day per variant. */
function shardTraffic(db: Database, experimentId: string) {
  return db
    .select({
      day: userDayStats.day,
      variant: userDayStats.variant,
      exposures: sql<number>`sum(${userDayStats.exposures})`,
      users: sql<number>`count(*) filter (where ${exposed})`,
    })
    .from(userDayStats)
    .where(eq(userDayStats.experimentId, experimentId))
    .groupBy(userDayStats.day, userDayStats.variant)
    .having(sql`sum(${userDayStats.exposures}) > 0`)
    .orderBy(asc(userDayStats.day), asc(userDayStats.variant));
}

/** Exposures per UTC day per variant, oldest first, from the daily aggregates of every shard. */
export async function trafficSeries(shards: EventShards, experimentId: string) {
  const rows = (await onEveryShard(shards, (db) => shardTraffic(db, experimentId))).flat();
  const days = new Map<
    string,
    { day: string; exposures: Record<string, number>; users: Record<string, number> }
  >();
  for (const r of rows) {
    const entry = days.get(r.day) ?? { day: r.day, exposures: {}, users: {} };
    entry.exposures[r.variant] = (entry.exposures[r.variant] ?? 0) + Number(r.exposures);
    entry.users[r.variant] = (entry.users[r.variant] ?? 0) + Number(r.users);
    days.set(r.day, entry);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/** One shard's totals per variant. */
function shardCounts(db: Database, experimentId: string, fromDay?: string) {
  return db
    .select({
      variant: userDayStats.variant,
      exposures: sql<number>`sum(${userDayStats.exposures})`,
      users: sql<number>`count(distinct ${userDayStats.userId}) filter (where ${exposed})`,
    })
    .from(userDayStats)
    .where(
      and(
        eq(userDayStats.experimentId, experimentId),
        fromDay === undefined ? undefined : gte(userDayStats.day, fromDay),
      ),
    )
    .groupBy(userDayStats.variant)
    .having(sql`sum(${userDayStats.exposures}) > 0`);
}

/**
 * Uncorrected totals per variant: exposures and distinct exposed users, over every day or from
 * `fromDay` (YYYY-MM-DD) on, as an analysis window counts them, summed over every shard.
 */
export async function liveCounts(shards: EventShards, experimentId: string, fromDay?: string) {
  const perShard = await onEveryShard(shards, (db) => shardCounts(db, experimentId, fromDay));
  const arms: Record<string, { exposures: number; users: number }> = {};
  for (const r of perShard.flat()) {
    const arm = arms[r.variant] ?? { exposures: 0, users: 0 };
    arm.exposures += Number(r.exposures);
    arm.users += Number(r.users);
    arms[r.variant] = arm;
  }
  return arms;
}

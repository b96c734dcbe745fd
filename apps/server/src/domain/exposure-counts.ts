import { and, asc, eq, gte, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { userDayStats } from '../db/schema.ts';

const exposed = sql`${userDayStats.exposures} > 0`;

/** Exposures per UTC day per variant, oldest first, from the daily aggregates. */
export async function trafficSeries(db: Database, experimentId: string) {
  const rows = await db
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
  const days = new Map<
    string,
    { day: string; exposures: Record<string, number>; users: Record<string, number> }
  >();
  for (const r of rows) {
    const entry = days.get(r.day) ?? { day: r.day, exposures: {}, users: {} };
    entry.exposures[r.variant] = Number(r.exposures);
    entry.users[r.variant] = Number(r.users);
    days.set(r.day, entry);
  }
  return [...days.values()];
}

/**
 * Uncorrected totals per variant: exposures and distinct exposed users, over every day or from
 * `fromDay` (YYYY-MM-DD) on, as an analysis window counts them.
 */
export async function liveCounts(db: Database, experimentId: string, fromDay?: string) {
  const rows = await db
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
  return Object.fromEntries(
    rows.map((r) => [r.variant, { exposures: Number(r.exposures), users: Number(r.users) }]),
  );
}

import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { userDayAggregates } from '../db/schema.ts';
import { MEASURES } from '../ingest/aggregate.ts';

/** Exposures per UTC day per variant, oldest first, from the daily aggregates. */
export async function trafficSeries(db: Database, experimentId: string) {
  const rows = await db
    .select({
      day: userDayAggregates.day,
      variant: userDayAggregates.variant,
      exposures: sql<number>`sum(${userDayAggregates.n})`,
      users: sql<number>`count(*)`,
    })
    .from(userDayAggregates)
    .where(
      and(
        eq(userDayAggregates.experimentId, experimentId),
        eq(userDayAggregates.measure, MEASURES.exposure),
      ),
    )
    .groupBy(userDayAggregates.day, userDayAggregates.variant)
    .orderBy(asc(userDayAggregates.day), asc(userDayAggregates.variant));
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

/** Uncorrected totals per variant: exposures and distinct exposed users. */
export async function liveCounts(db: Database, experimentId: string) {
  const rows = await db
    .select({
      variant: userDayAggregates.variant,
      exposures: sql<number>`sum(${userDayAggregates.n})`,
      users: sql<number>`count(distinct ${userDayAggregates.userId})`,
    })
    .from(userDayAggregates)
    .where(
      and(
        eq(userDayAggregates.experimentId, experimentId),
        eq(userDayAggregates.measure, MEASURES.exposure),
      ),
    )
    .groupBy(userDayAggregates.variant);
  return Object.fromEntries(
    rows.map((r) => [r.variant, { exposures: Number(r.exposures), users: Number(r.users) }]),
  );
}

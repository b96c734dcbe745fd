import { count, eq, sql } from 'drizzle-orm';
import { type Database, rows, toNumber } from '../db/connect.ts';
import { experiments, orgs, usageCounters, users } from '../db/schema.ts';
import { type EventShards, onEveryShard } from '../db/shards/every-shard.ts';
import { DAY_MS, utcDay } from '../kernel/utc-day.ts';
import { usageMonth } from './billing/usage-month.ts';
import { effectivePlan } from './plans/effective-plan.ts';
import { PLANS, type Plan } from './plans/plans.ts';

export const OVERVIEW_DAYS = 30;

/** The last `days` UTC days ending with `now`'s, oldest first. */
function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => utcDay(new Date(today - (days - 1 - i) * DAY_MS)));
}

/**
 * Events per day by the day they occurred, from the per-user daily aggregates (kept for good,
 * unlike raw events past retention): exposures and model calls, plus business events.
 */
async function eventsPerDay(shards: EventShards, from: string, to: string) {
  const perShard = await onEveryShard(shards, (db) => shardEventsPerDay(db, from, to));
  const perDay = new Map<string, number>();
  for (const r of perShard.flat()) perDay.set(r.day, (perDay.get(r.day) ?? 0) + toNumber(r.events));
  return perDay;
}

/** One shard's folded events per day. */
function shardEventsPerDay(db: Database, from: string, to: string) {
  return rows<{ day: string; events: unknown }>(
    db,
    sql`select day::text as day, sum(events) as events from (
          select day, exposures + calls as events from user_day_stats
           where day between ${from}::date and ${to}::date
          union all
          select day, n from user_day_business
           where day between ${from}::date and ${to}::date
        ) folded group by day`,
  );
}

async function total(db: Database, table: typeof orgs | typeof users | typeof experiments) {
  const [row] = await db.select({ n: count() }).from(table);
  return Number(row?.n ?? 0);
}

/** How many orgs are on each plan (the plan in effect at `now`). */
async function orgsPerPlan(db: Database, now: Date): Promise<Record<Plan, number>> {
  const all = await db.select({ id: orgs.id }).from(orgs);
  const perPlan = Object.fromEntries(PLANS.map((p) => [p, 0])) as Record<Plan, number>;
  for (const { id } of all) perPlan[(await effectivePlan(db, id, now)).plan] += 1;
  return perPlan;
}

/** Platform-wide totals and traffic for the platform owners; the traffic from every shard. */
export async function platformOverview(db: Database, shards: EventShards, now: Date) {
  const month = usageMonth(now);
  const days = lastDays(now, OVERVIEW_DAYS);
  const [metered] = await db
    .select({ events: sql<unknown>`coalesce(sum(${usageCounters.events}), 0)` })
    .from(usageCounters)
    .where(eq(usageCounters.month, month));
  const perDay = await eventsPerDay(shards, days[0] as string, days[days.length - 1] as string);
  return {
    orgs: await total(db, orgs),
    users: await total(db, users),
    experiments: await total(db, experiments),
    month,
    events_this_month: toNumber(metered?.events ?? 0),
    events_per_day: days.map((day) => ({ day, events: perDay.get(day) ?? 0 })),
    plans: await orgsPerPlan(db, now),
  };
}

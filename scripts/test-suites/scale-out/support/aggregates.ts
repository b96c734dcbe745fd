import { sql } from 'drizzle-orm';
import { type Database, rows } from '../../../../apps/server/src/db/connect.ts';

/**
 * Every aggregate the fold keeps for one experiment, without the experiment's id and in a fixed
 * order, so two runs of the same events (on different deployments, in different experiments)
 * compare equal exactly when they folded the same. Sums are read as text: exact numerics.
 */
export async function aggregatesOf(db: Database, experimentId: string) {
  const x = sql`${experimentId}::uuid`;
  return {
    stats: await rows(
      db,
      sql`select day::text, variant, user_id, exposures, calls, errors, latency_n,
          latency_sum::text, tokens_n, tokens_sum::text, cost_sum::text, cost_n
        from user_day_stats where experiment_id = ${x} order by day, variant, user_id`,
    ),
    values: await rows(
      db,
      sql`select kind, day::text, variant, value::text, n from call_value_counts
        where experiment_id = ${x} order by kind, day, variant, value`,
    ),
    business: await rows(
      db,
      sql`select day::text, metric, variant, user_id, n, sum::text from user_day_business
        where experiment_id = ${x} order by day, metric, variant, user_id`,
    ),
  };
}

async function count(db: Database, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await rows<{ n: number | string }>(db, query);
  return Number(row?.n ?? 0);
}

/** What an org was metered and stored: each equals its accepted events when exact. */
export async function ledgerOf(db: Database, orgId: string) {
  const o = sql`${orgId}::uuid`;
  return {
    metered: await count(
      db,
      sql`select coalesce(sum(events), 0) as n from usage_counters where org_id = ${o}`,
    ),
    stored: await count(db, sql`select count(*) as n from events where org_id = ${o}`),
  };
}

import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { usageCounters } from '../db/schema.ts';

/**
 * Locks the org's shard-0 meter row for the month (made when missing) and reads the month's
 * usage across all shards: with an allowance that row is the lock, so concurrent batches of
 * one org are cut at the allowance in turn.
 */
export async function lockedMonthUsage(tx: Database, orgId: string, month: string) {
  await tx.insert(usageCounters).values({ orgId, month, shard: 0 }).onConflictDoNothing();
  await tx
    .select({ events: usageCounters.events })
    .from(usageCounters)
    .where(
      and(
        eq(usageCounters.orgId, orgId),
        eq(usageCounters.month, month),
        eq(usageCounters.shard, 0),
      ),
    )
    .for('update');
  return monthUsage(tx, orgId, month);
}

/** The org's usage of the month as committed: the sum of its meter rows. */
export async function monthUsage(db: Database, orgId: string, month: string): Promise<number> {
  const [usage] = await db
    .select({ events: sql<number>`coalesce(sum(${usageCounters.events}), 0)` })
    .from(usageCounters)
    .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, month)));
  return Number(usage?.events ?? 0);
}

/** Rows the unmetered path spreads an org's monthly meter over; the month's usage is their sum. */
const METER_ROWS = 16;

/**
 * A meter row for a batch without an allowance: one at random, so that concurrent batches of
 * one org seldom wait on each other's row lock.
 */
export function anyMeterRow(): number {
  return Math.floor(Math.random() * METER_ROWS);
}

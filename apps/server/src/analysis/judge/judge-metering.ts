import { and, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { judgeScores, usageCounters } from '../../db/schema.ts';

type Reader = Pick<Database, 'select'>;

export interface ScoreRow {
  orgId: string;
  experimentId: string;
  metric: string;
  eventId: string;
  userId: string;
  variant: string;
  day: string;
  score: number;
}

export interface OrgMonth {
  orgId: string;
  month: string;
  allowance: number;
}

async function used(db: Reader, { orgId, month }: OrgMonth): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${usageCounters.judgeEvaluations}), 0)` })
    .from(usageCounters)
    .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, month)));
  // pg returns the sum of bigint as a string, PGlite as a number
  return Number(row?.n ?? 0);
}

/** Evaluations left this month; a planning figure only, storeScores decides under the lock. */
export async function remainingAllowance(db: Database, org: OrgMonth): Promise<number> {
  return Math.max(0, org.allowance - (await used(db, org)));
}

/**
 * Stores what `insert` stores of `rows` and meters it, in one transaction, so a score exists
 * exactly when it was counted. The org's shard-0 counter row is the lock (as for event
 * metering), so concurrent runs cannot together pass the allowance: the rows that no longer fit
 * are not offered to `insert`. `insert` answers how many it stored (a row already scored is not
 * stored again, and not counted).
 */
export async function storeMetered<T>(
  db: Database,
  org: OrgMonth,
  rows: readonly T[],
  insert: (tx: Transaction, fits: T[]) => Promise<number>,
): Promise<{ stored: number; overAllowance: number; remaining: number }> {
  return db.transaction(async (tx) => {
    const shard0 = and(
      eq(usageCounters.orgId, org.orgId),
      eq(usageCounters.month, org.month),
      eq(usageCounters.shard, 0),
    );
    await tx
      .insert(usageCounters)
      .values({ orgId: org.orgId, month: org.month, shard: 0 })
      .onConflictDoNothing();
    await tx.select({ shard: usageCounters.shard }).from(usageCounters).where(shard0).for('update');
    const room = Math.max(0, org.allowance - (await used(tx, org)));
    const fits = rows.slice(0, room);
    const stored = fits.length === 0 ? 0 : await insert(tx, fits);
    if (stored > 0) {
      await tx
        .insert(usageCounters)
        .values({ orgId: org.orgId, month: org.month, shard: 0, judgeEvaluations: stored })
        .onConflictDoUpdate({
          target: [usageCounters.orgId, usageCounters.month, usageCounters.shard],
          set: {
            judgeEvaluations: sql`usage_counters.judge_evaluations + excluded.judge_evaluations`,
          },
        });
    }
    return { stored, overAllowance: rows.length - fits.length, remaining: room - stored };
  });
}

/** Online judge scores: stored once per (experiment, metric, event) and metered. */
export function storeScores(db: Database, org: OrgMonth, scores: readonly ScoreRow[]) {
  return storeMetered(db, org, scores, async (tx, fits) => {
    const inserted = await tx
      .insert(judgeScores)
      .values(fits)
      .onConflictDoNothing()
      .returning({ eventId: judgeScores.eventId });
    return inserted.length;
  });
}

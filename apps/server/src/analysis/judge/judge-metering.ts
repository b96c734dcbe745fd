import { and, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { judgeScores, usageCounters } from '../../db/schema.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { isShardUnreachable } from '../../db/shards/shard-unreachable.ts';
import { failureReason } from '../run/failure-reason.ts';

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

/** What a batch of online scores came to; `unstored` are those whose shard did not answer. */
export interface StoredScores {
  stored: number;
  overAllowance: number;
  remaining: number;
  unstored: { count: number; reason: string } | null;
}

/**
 * Online judge scores: stored once per (experiment, metric, event) and metered. A score lives on
 * its user's shard, beside the event; the meter is the control database's. On one database both
 * are one transaction. Over several shards each shard's part is committed on its shard under the
 * meter's lock and metered in the lock's transaction, as ingest meters events: a score is never
 * counted unless stored (a meter that fails to commit after the shards did leaves scores stored
 * and not counted, in the customer's favour). A part whose shard does not answer is not stored
 * or metered: its events are unscored and tried again by the next run.
 */
export async function storeScores(
  control: Database,
  shards: ShardSet,
  org: OrgMonth,
  scores: readonly ScoreRow[],
): Promise<StoredScores> {
  let unstored: StoredScores['unstored'] = null;
  const metered = await storeMetered(control, org, scores, async (tx, fits) => {
    const parts = new Map<number, ScoreRow[]>();
    for (const row of fits) {
      const position = shards.positionOf(row.orgId, row.userId);
      parts.set(position, [...(parts.get(position) ?? []), row]);
    }
    const settled = await Promise.allSettled(
      [...parts].map(([position, rows]) => {
        const db = shards.all[position]?.db;
        return insertScores(db === control ? tx : (db as Database), rows);
      }),
    );
    const failed = [...parts.values()].filter((_, i) => settled[i]?.status === 'rejected');
    const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    const other = errors.find((e) => !isShardUnreachable(e) || !shards.sharded);
    if (other !== undefined) throw other;
    if (failed.length > 0)
      unstored = {
        count: failed.reduce((n, rows) => n + rows.length, 0),
        reason: `a shard of event data did not answer: ${failureReason(errors[0])}`,
      };
    return settled.reduce((n, s) => n + (s.status === 'fulfilled' ? s.value : 0), 0);
  });
  return { ...metered, unstored };
}

async function insertScores(db: Pick<Database, 'insert'>, rows: readonly ScoreRow[]) {
  const inserted = await db
    .insert(judgeScores)
    .values([...rows])
    .onConflictDoNothing()
    .returning({ eventId: judgeScores.eventId });
  return inserted.length;
}

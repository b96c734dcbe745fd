import { and, asc, eq, isNull, lt, or } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/connect.ts';
import { offlineRuns } from '../../db/schema.ts';
import type { RunRow } from './service.ts';

/**
 * How long a scorer holds a run without renewing: a judge batch renews it, and a holder that
 * died (a process killed mid-scoring) leaves a run another one takes over once this has passed.
 * Longer than one judge batch can take (four calls, each at most three 30 s attempts).
 */
export const SCORING_LEASE_MS = 5 * 60 * 1000;

/** Runs whose scorer is gone: in `scoring` with the lease past (or given back). */
const orphaned = (now: Date) =>
  and(
    eq(offlineRuns.status, 'scoring'),
    or(isNull(offlineRuns.scoringExpiresAt), lt(offlineRuns.scoringExpiresAt, now)),
  );

export interface Claim {
  run: RunRow;
  holder: string;
  /** True when the run was already `scoring` under a holder that is gone. */
  takenOver: boolean;
}

/**
 * Takes a run for scoring: a `running` one moves to `scoring`; a `scoring` one whose lease has
 * passed is taken over. Anything else (being scored, complete, failed) is not claimed: null.
 */
export async function claimScoring(
  db: Database,
  runId: string,
  holder: string,
  now: Date,
): Promise<Claim | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(offlineRuns)
      .where(eq(offlineRuns.id, runId))
      .for('update');
    if (row === undefined) return null;
    const expired = row.scoringExpiresAt === null || row.scoringExpiresAt < now;
    const takenOver = row.status === 'scoring' && expired;
    if (row.status !== 'running' && !takenOver) return null;
    const [claimed] = await tx
      .update(offlineRuns)
      .set({
        status: 'scoring',
        scoringHolder: holder,
        scoringExpiresAt: new Date(now.getTime() + SCORING_LEASE_MS),
      })
      .where(eq(offlineRuns.id, runId))
      .returning();
    return { run: claimed!, holder, takenOver };
  });
}

/** The ids of runs left in `scoring` by a holder that is gone, oldest first. */
export async function orphanedRuns(db: Database, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: offlineRuns.id })
    .from(offlineRuns)
    .where(orphaned(now))
    .orderBy(asc(offlineRuns.createdAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

const held = (runId: string, holder: string) =>
  and(
    eq(offlineRuns.id, runId),
    eq(offlineRuns.scoringHolder, holder),
    eq(offlineRuns.status, 'scoring'),
  );

/** Extends the lease; false when it was lost (taken over after it passed): stop, write nothing. */
export async function renewScoring(
  db: Database,
  runId: string,
  holder: string,
  now: Date,
): Promise<boolean> {
  const renewed = await db
    .update(offlineRuns)
    .set({ scoringExpiresAt: new Date(now.getTime() + SCORING_LEASE_MS) })
    .where(held(runId, holder))
    .returning({ id: offlineRuns.id });
  return renewed.length > 0;
}

/** Locks the run for a write of its scorer; false when the lease is no longer this holder's. */
export async function stillHolding(tx: Transaction, runId: string, holder: string) {
  const [row] = await tx
    .select({ id: offlineRuns.id })
    .from(offlineRuns)
    .where(held(runId, holder))
    .for('update');
  return row !== undefined;
}

/** Gives the lease back (a stopping process): another scorer may take the run over at once. */
export async function releaseScoring(db: Database, runId: string, holder: string): Promise<void> {
  await db.update(offlineRuns).set({ scoringExpiresAt: null }).where(held(runId, holder));
}

/**
 * Ends scoring as `complete` or `failed`, if the lease is still this holder's; the row as
 * written, or null when the run was taken over meanwhile (the new holder finishes it).
 */
export async function finishScoring(
  db: Database | Transaction,
  runId: string,
  holder: string,
  end: Partial<typeof offlineRuns.$inferInsert> & { status: 'complete' | 'failed' },
): Promise<RunRow | null> {
  const [row] = await db
    .update(offlineRuns)
    .set({ ...end, scoringHolder: null, scoringExpiresAt: null })
    .where(held(runId, holder))
    .returning();
  return row ?? null;
}

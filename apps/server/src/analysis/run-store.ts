import { and, asc, eq, sql } from 'drizzle-orm';
import type { Context } from '../context.ts';
import type { Database } from '../db/connect.ts';
import { analysisRuns } from '../db/schema.ts';
import type { Results } from './results-schema.ts';
import type { RunRecord } from './run-record.ts';

/** What presenting a run needs: a stored row, or a record just stored. */
export type StoredRun = Pick<
  typeof analysisRuns.$inferSelect,
  | 'experimentId'
  | 'label'
  | 'kind'
  | 'computedAt'
  | 'windowStart'
  | 'windowEnd'
  | 'srm'
  | 'arms'
  | 'results'
>;

/** The Results response of one stored run (docs/decisions.md#the-results-response). */
export function presentRun(run: StoredRun, availableDays: string[]): Results {
  return {
    experiment_id: run.experimentId,
    computed_for: run.label,
    computed_at: run.computedAt.toISOString(),
    preliminary: run.kind === 'manual',
    available_days: availableDays,
    window: { start: run.windowStart.toISOString(), end: run.windowEnd.toISOString() },
    srm: run.srm,
    arms: run.arms,
    results: run.results,
  };
}

/** Days first (oldest first), then manual runs in the order they were made. */
export async function availableLabels(db: Database, experimentId: string): Promise<string[]> {
  const found = await db
    .select({ label: analysisRuns.label, kind: analysisRuns.kind })
    .from(analysisRuns)
    .where(and(eq(analysisRuns.experimentId, experimentId), eq(analysisRuns.hasResults, true)))
    .orderBy(asc(analysisRuns.computedAt));
  const days = found
    .filter((r) => r.kind === 'nightly')
    .map((r) => r.label)
    .sort();
  const manual = found
    .filter((r) => r.kind === 'manual')
    .map((r) => r.label)
    .sort();
  return [...days, ...manual];
}

/**
 * Stores a run (a nightly day is replaced when re-run; a manual run never is) and
 * returns it presented, with its status. A collecting run is stored but not listed.
 */
export async function storeRun(
  ctx: Context,
  orgId: string,
  experimentId: string,
  record: RunRecord,
  foldedThrough: Date,
): Promise<Results & { status: RunRecord['status'] }> {
  const values = {
    foldedThrough,
    orgId,
    experimentId,
    label: record.label,
    kind: record.kind,
    windowStart: record.windowStart,
    windowEnd: record.windowEnd,
    computedAt: ctx.clock.now(),
    hasResults: record.status !== 'collecting',
    srm: record.srm,
    results: record.results,
    arms: record.arms,
  };
  if (record.kind === 'manual') {
    // A manual run is permanent: its label was taken for it alone (manual-run.ts), and a
    // stored one is never replaced.
    const stored = await ctx.db
      .insert(analysisRuns)
      .values(values)
      .onConflictDoNothing()
      .returning({ id: analysisRuns.id });
    if (stored.length === 0) throw new Error(`manual run ${record.label} is already stored`);
  } else {
    await ctx.db
      .insert(analysisRuns)
      .values(values)
      .onConflictDoUpdate({
        target: [analysisRuns.experimentId, analysisRuns.label],
        set: { ...values, computedAt: sql`excluded.computed_at` },
      });
  }
  const listed = record.status === 'collecting' ? [] : await availableLabels(ctx.db, experimentId);
  const presented = presentRun({ ...values, experimentId }, listed);
  // A collecting run serves the gate's unset state, not its expected shares.
  const srm = record.status === 'collecting' ? { p_value: null, halted: false } : presented.srm;
  return { ...presented, srm, status: record.status };
}

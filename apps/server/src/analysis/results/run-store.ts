import { sql } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/connect.ts';
import { analysisRuns } from '../../db/schema.ts';
import { recordAuditOnce } from '../../domain/audit.ts';
import {
  enqueueRunEvent,
  enqueueViolationEvent,
} from '../../domain/outbound-webhooks/results-events.ts';
import type { StoredSlices } from '../../schemas/analysis-run.ts';
import type { RunRecord } from '../compute/run-record.ts';
import { guardrailViolations } from '../decision/guardrails.ts';
import { availableLabels, presentRun } from './results.ts';
import type { Results } from './results-schema.ts';

/**
 * Stores a run (a nightly day is replaced when re-run; a manual run never is) and
 * returns it presented, with its status. A collecting run is stored but not listed.
 */
export async function storeRun(
  ctx: Pick<Context, 'db' | 'clock'>,
  orgId: string,
  experimentId: string,
  record: RunRecord,
  foldedThrough: Date,
  slices: StoredSlices = {},
  final = false,
): Promise<Results & { status: RunRecord['status'] }> {
  const values = {
    slices,
    final,
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
    decision: record.decision,
  };
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const firstStored = await insertRun(tx, values, record.kind);
    await auditViolations(tx, orgId, experimentId, record, now);
    await enqueueRunEvent(
      tx,
      {
        orgId,
        experimentId,
        label: record.label,
        kind: record.kind,
        final,
        collecting: record.status === 'collecting',
        recommendation: record.decision.recommendation,
        treatment: record.decision.treatment,
        violations: guardrailViolations(record.results).length,
      },
      firstStored,
      now,
    );
  });
  const listed = record.status === 'collecting' ? [] : await availableLabels(ctx.db, experimentId);
  const presented = presentRun({ ...values, experimentId }, listed);
  // A collecting run serves the gate's unset state, not its expected shares.
  const srm = record.status === 'collecting' ? { p_value: null, halted: false } : presented.srm;
  return { ...presented, srm, status: record.status };
}

type RunValues = typeof analysisRuns.$inferInsert;

/** Stores the run; whether this is its first storing (a night re-run replaces its row). */
async function insertRun(
  tx: Database,
  values: RunValues,
  kind: RunRecord['kind'],
): Promise<boolean> {
  if (kind === 'manual') {
    // A manual run is permanent: its label was taken for it alone (manual-run.ts), and a
    // stored one is never replaced.
    const stored = await tx
      .insert(analysisRuns)
      .values(values)
      .onConflictDoNothing()
      .returning({ id: analysisRuns.id });
    if (stored.length === 0) throw new Error(`manual run ${values.label} is already stored`);
    return true;
  }
  // PostgreSQL leaves xmax at 0 on a row an upsert inserted, and sets it on one it updated.
  const [row] = await tx
    .insert(analysisRuns)
    .values(values)
    .onConflictDoUpdate({
      target: [analysisRuns.experimentId, analysisRuns.label],
      set: { ...values, computedAt: sql`excluded.computed_at` },
    })
    .returning({ inserted: sql<boolean>`xmax = 0` });
  return row?.inserted === true;
}

/**
 * Each guardrail violation of the run, audited with it in one transaction and once per (run
 * label, metric, treatment): a re-run night finds its entries there already. A new entry
 * queues its `guardrail.violated` event in the same transaction.
 */
async function auditViolations(
  tx: Database,
  orgId: string,
  experimentId: string,
  record: RunRecord,
  now: Date,
) {
  for (const v of guardrailViolations(record.results)) {
    const first = await recordAuditOnce(tx, {
      orgId,
      actorUserId: null,
      action: 'guardrail.violated',
      targetType: 'experiment',
      targetId: experimentId,
      details: {
        run: record.label,
        run_kind: record.kind,
        metric: v.metric,
        treatment: v.treatment,
        effect: v.effect,
        lift: v.lift,
        p_value_fdr: v.p_value_fdr,
        always_valid: v.always_valid,
      },
    });
    if (first) {
      const run = { experiment_id: experimentId, run: record.label };
      await enqueueViolationEvent(
        tx,
        orgId,
        { ...run, metric: v.metric, treatment: v.treatment },
        now,
      );
    }
  }
}

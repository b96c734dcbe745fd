import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/connect.ts';
import { experiments, manualRunLabels } from '../../db/schema.ts';
import type { LoadedExperiment } from '../../domain/experiments/service.ts';
import { checkDimension } from '../compute/dimensions.ts';
import { AnalysisError } from '../outcomes.ts';
import { awaitFold, type FoldGateDeps } from './fold-gate.ts';
import { analyzeExperiment, type RunDeps } from './pipeline.ts';
import { measuredRun, type RunMetricsDeps } from './run-metrics.ts';

const HOUR_MS = 3600_000;

/** `manual-<ISO instant>` of the first instant from `now` on that no run of the hour took. */
function freeLabel(now: Date, taken: ReadonlySet<string>): string {
  for (let at = now.getTime(); ; at++) {
    const label = `manual-${new Date(at).toISOString()}`;
    if (!taken.has(label)) return label;
  }
}

/**
 * Takes the next manual run's label under the experiment's row lock, so concurrent calls take
 * turns: at most `limit` runs per experiment in any hour (counting runs still computing), each
 * under its own label. Past the limit: `manual-run-limit` with the seconds until a slot frees.
 */
async function takeLabel(
  ctx: Pick<Context, 'db' | 'clock'>,
  experimentId: string,
  limit: number,
): Promise<string> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select id from ${experiments} where id = ${experimentId} for update`);
    const recent = await tx
      .select({ label: manualRunLabels.label, takenAt: manualRunLabels.takenAt })
      .from(manualRunLabels)
      .where(
        and(
          eq(manualRunLabels.experimentId, experimentId),
          gt(manualRunLabels.takenAt, new Date(now.getTime() - HOUR_MS)),
        ),
      )
      .orderBy(asc(manualRunLabels.takenAt));
    if (recent.length >= limit) {
      const freesAt = (recent[recent.length - limit]?.takenAt.getTime() ?? now.getTime()) + HOUR_MS;
      throw new AnalysisError(
        'manual-run-limit',
        `At most ${limit} manual runs per experiment per hour (ARBITER_MANUAL_RUNS_PER_HOUR); the next one is possible at ${new Date(freesAt).toISOString()}`,
        { limit },
        Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)),
      );
    }
    const label = freeLabel(now, new Set(recent.map((r) => r.label)));
    // The primary key refuses a label taken earlier than the hour (a clock set back): a bug, not a retry.
    await tx.insert(manualRunLabels).values({ experimentId, label, takenAt: now });
    return label;
  });
}

async function giveBack(db: Database, experimentId: string, label: string): Promise<void> {
  await db
    .delete(manualRunLabels)
    .where(and(eq(manualRunLabels.experimentId, experimentId), eq(manualRunLabels.label, label)));
}

/**
 * A manual (preliminary) run, stored for good under its own `manual-<ISO instant>` label:
 * the label first (the hourly limit answers at once), then the fold gate, then the run over a
 * window ending at the label's instant. A run that fails (the fold gate's 503 included) gives
 * its label back, so it does not count against the limit. A run counts in the metrics from its
 * label on (a refusal by the limit is no run).
 */
export async function runManualAnalysis(
  ctx: RunDeps & FoldGateDeps & RunMetricsDeps,
  found: LoadedExperiment,
  dimension?: string,
) {
  if (dimension !== undefined) checkDimension(found.version.config, dimension);
  const experimentId = found.row.id;
  const label = await takeLabel(ctx, experimentId, ctx.config.manualRunsPerHour);
  try {
    return await measuredRun(ctx, 'manual', async () => {
      const foldedThrough = await awaitFold(ctx, ctx.config.runFoldWaitMs);
      // A stopped experiment's window ends at the stop: what came after is never analysed.
      const asked = new Date(label.slice('manual-'.length));
      const stoppedAt = found.row.stoppedAt;
      return analyzeExperiment(ctx, found, {
        kind: 'manual',
        label,
        windowEnd: stoppedAt !== null && stoppedAt < asked ? stoppedAt : asked,
        foldedThrough,
        dimensions: dimension === undefined ? [] : [dimension],
      });
    });
  } catch (error) {
    await giveBack(ctx.db, experimentId, label).catch(() => {});
    throw error;
  }
}

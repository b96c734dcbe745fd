import { gt, lte } from 'drizzle-orm';
import type { Context } from '../../context.ts';
import { experiments } from '../../db/schema.ts';
import { loadCurrentVersion } from '../../domain/experiments/current-version.ts';
import type { LoadedExperiment } from '../../domain/experiments/service.ts';
import { mapConcurrent } from '../../kernel/map-concurrent.ts';
import { inSpan } from '../../kernel/tracing.ts';
import { DAY_MS, utcDay } from '../../kernel/utc-day.ts';
import { runJudgeJob } from '../judge/judge-job.ts';
import { purgeExpiredEvents } from '../retention/retention.ts';
import { failureReason } from './failure-reason.ts';
import { awaitFold, type FoldGateDeps } from './fold-gate.ts';
import { recordedRun } from './nightly-log.ts';
import { analyzeExperiment, type RunDeps, type RunRequest } from './pipeline.ts';
import { withLease } from './run-lease.ts';
import { measuredRun } from './run-metrics.ts';

/** Long enough for the largest nightly run; a crashed holder frees the lease after it. */
const LEASE_MS = 2 * 3600 * 1000;
/** The scheduled run waits this long for the fold at most: nobody waits on its answer. */
export const SCHEDULED_FOLD_WAIT_MS = 3600 * 1000;

/** The nightly run: the judge scores first, then the fold gate and every experiment's run. */
export type NightlyDeps = RunDeps &
  FoldGateDeps &
  Pick<Context, 'judge' | 'metrics' | 'modelText' | 'log'>;

export interface NightlySummary {
  day: string;
  ran: boolean;
  /** `status` is the run's, or `failed` with the `reason` (nothing was stored for it). */
  experiments: Array<{ experiment_id: string; name: string; status: string; reason?: string }>;
  /** Experiments the day cannot cover: created after it (the window starts on creation day). */
  skipped: Array<{ experiment_id: string; name: string; created_at: string; reason: string }>;
  purged_events: number;
}

/**
 * The nightly pipeline for one UTC day, every experiment created by then: judge scoring
 * (when configured), the fold gate (every event accepted before the run is folded, waiting up
 * to `foldWaitMs`), then per experiment SRM → tests → FDR, then retention. One runner at a
 * time across processes; re-running a day replaces its results. How each run ended is recorded
 * for the platform owner's health view, and counted in the metrics with its duration. The run
 * is a span, `arbiter.nightly_run`, the parent of each experiment's `arbiter.analysis` and of
 * the judge's calls.
 */
export async function runNightly(
  ctx: NightlyDeps,
  day: string,
  foldWaitMs: number,
): Promise<NightlySummary> {
  const run = { day, startedAt: ctx.clock.now(), finishedAt: () => ctx.clock.now() };
  return measuredRun(
    ctx,
    'nightly',
    () =>
      inSpan('arbiter.nightly_run', { 'arbiter.run.day': day }, async (span) => {
        const summary = await recordedRun(ctx.db, run, () =>
          runNightlyUnrecorded(ctx, day, foldWaitMs),
        );
        span.setAttributes({
          'arbiter.run.ran': summary.ran,
          'arbiter.run.experiments': summary.experiments.length,
        });
        return summary;
      }),
    (summary) =>
      !summary.ran
        ? 'skipped'
        : summary.experiments.some((e) => e.status === 'failed')
          ? 'failed'
          : 'succeeded',
  );
}

async function runNightlyUnrecorded(
  ctx: NightlyDeps,
  day: string,
  foldWaitMs: number,
): Promise<NightlySummary> {
  const now = ctx.clock.now();
  const windowEnd = new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS);
  const outcome = await withLease(ctx.db, 'nightly', LEASE_MS, now, async () => {
    if (ctx.judge) await runJudgeJob(ctx, ctx.judge, { now });
    const foldedThrough = await awaitFold(ctx, foldWaitMs);
    const list = await loadCurrentVersion(ctx.db, lte(experiments.createdAt, windowEnd)).orderBy(
      experiments.createdAt,
    );
    // Experiments are independent: a PostgreSQL server analyses several at once (one core
    // each); the embedded database has one connection and runs them in turn.
    const atOnce = ctx.config.databaseUrl ? ctx.config.analysisConcurrency : 1;
    const due = list.flatMap((found) => {
      const window = nightlyWindow(found.row, windowEnd);
      return window === null ? [] : [{ found, window }];
    });
    const done = await mapConcurrent(due, atOnce, ({ found, window }) =>
      analyzedOrFailed(ctx, found, {
        kind: 'nightly',
        label: day,
        ...window,
        foldedThrough,
        dimensions: found.version.config.dimensions ?? [],
      }),
    );
    const purged = await purgeExpiredEvents(ctx, now);
    return { experiments: done, purged };
  });
  const skipped = await experimentsCreatedAfter(ctx, windowEnd, day);
  return outcome === null
    ? { day, ran: false, experiments: [], skipped, purged_events: 0 }
    : { day, ran: true, experiments: outcome.experiments, skipped, purged_events: outcome.purged };
}

/**
 * Whether the night of the day ending at `dayEnd` analyses an experiment, and up to when
 * (docs/experiments-lifecycle.md): a running one over the whole day; a stopped one (archived
 * since, or not) once more for the day it stopped, its window ending at the stop and the run
 * marked final, and never for a later day; a draft never (it has no exposures). A day before
 * the stop, re-run, is analysed as it was while the experiment ran.
 */
export function nightlyWindow(
  row: Pick<LoadedExperiment['row'], 'status' | 'stoppedAt'>,
  dayEnd: Date,
): { windowEnd: Date; final: boolean } | null {
  if (row.stoppedAt !== null) {
    if (row.stoppedAt.getTime() >= dayEnd.getTime()) return { windowEnd: dayEnd, final: false };
    if (row.stoppedAt.getTime() < dayEnd.getTime() - DAY_MS) return null;
    return { windowEnd: row.stoppedAt, final: true };
  }
  return row.status === 'running' ? { windowEnd: dayEnd, final: false } : null;
}

/**
 * One experiment's run, or why it failed (a shard down, say): the run stores nothing then, so
 * the results published stay the last complete ones, and the next nightly pass runs it again.
 * The other experiments go on.
 */
async function analyzedOrFailed(
  ctx: NightlyDeps,
  found: LoadedExperiment,
  request: RunRequest,
): Promise<NightlySummary['experiments'][number]> {
  const { id, name } = found.row;
  try {
    const record = await analyzeExperiment(ctx, found, request);
    return { experiment_id: id, name, status: record.status };
  } catch (error) {
    ctx.log.error({ err: error, experiment_id: id }, 'nightly run of an experiment failed');
    return { experiment_id: id, name, status: 'failed', reason: failureReason(error) };
  }
}

/** Why a run of `day` leaves out the experiments created after it, and which day covers them. */
async function experimentsCreatedAfter(
  ctx: Pick<Context, 'db'>,
  windowEnd: Date,
  day: string,
): Promise<NightlySummary['skipped']> {
  const later = await ctx.db
    .select({ id: experiments.id, name: experiments.name, createdAt: experiments.createdAt })
    .from(experiments)
    .where(gt(experiments.createdAt, windowEnd))
    .orderBy(experiments.createdAt);
  return later.map((e) => {
    const created = utcDay(e.createdAt);
    return {
      experiment_id: e.id,
      name: e.name,
      created_at: e.createdAt.toISOString(),
      reason: `created on ${created}, after ${day}: an analysis window starts on the day the experiment was created, so run the pipeline for ${created} or later (--day ${created})`,
    };
  });
}

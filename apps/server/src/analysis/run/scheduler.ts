import { Cron } from 'croner';
import type { Context } from '../../context.ts';
import { applyPeriodEnds } from '../../domain/plans/plan-changes.ts';
import { previousUtcDay } from '../../kernel/utc-day.ts';
import {
  type NightlyDeps,
  type NightlySummary,
  runNightly,
  SCHEDULED_FOLD_WAIT_MS,
} from './nightly.ts';

export const PERIOD_END_CRON = '7 * * * *';

type SchedulerDeps = NightlyDeps & Pick<Context, 'disk'>;
type ErrorLog = { error(o: object, m: string): void };

/**
 * The scheduled run for the previous UTC day, or null when it was skipped: a run writes, and on
 * the embedded database a write past the free-space threshold is what makes PostgreSQL spin
 * (the HTTP routes refuse writes with 507 then; the cron has nobody to answer, so it logs).
 */
export async function runScheduledNightly(
  ctx: SchedulerDeps,
  log: ErrorLog,
): Promise<NightlySummary | null> {
  const day = previousUtcDay(ctx.clock.now());
  if (ctx.disk !== null && !(await ctx.disk.writesAccepted())) {
    log.error(
      { day },
      `nightly pipeline for ${day} skipped: the database's disk is below ARBITER_MIN_FREE_DISK_BYTES; once space is back, run it with \`arbiter pipeline run --day ${day}\``,
    );
    return null;
  }
  return runNightly(ctx, day, SCHEDULED_FOLD_WAIT_MS);
}

/**
 * Runs the nightly pipeline on `ARBITER_NIGHTLY_CRON` (UTC) for the previous UTC day. Every
 * process may run a scheduler: the lease inside runNightly lets one of them do the work.
 */
export function startNightlyScheduler(ctx: SchedulerDeps, log: ErrorLog) {
  // What the jobs are doing right now, so a shutdown can wait for it rather than cut it short.
  const inFlight = new Set<Promise<unknown>>();
  const tracked = (work: () => Promise<unknown>) => async () => {
    const running = work();
    inFlight.add(running);
    try {
      await running;
    } finally {
      inFlight.delete(running);
    }
  };
  const job = new Cron(
    ctx.config.nightlyCron,
    { timezone: 'UTC', protect: true },
    tracked(async () => {
      try {
        await runScheduledNightly(ctx, log);
      } catch (error) {
        log.error({ err: error }, 'nightly pipeline failed');
      }
    }),
  );
  // Limits follow the effective plan at once; this hourly pass records a paid period's end
  // in orgs.plan and the audit trail (no webhook arrives at that instant).
  const periodEnds = new Cron(
    PERIOD_END_CRON,
    { timezone: 'UTC', protect: true },
    tracked(async () => {
      try {
        await applyPeriodEnds(ctx.db, ctx.clock.now());
      } catch (error) {
        log.error({ err: error }, 'applying ended billing periods failed');
      }
    }),
  );
  return {
    /** No run starts from now on; resolves once the runs in progress have ended. */
    stop: async () => {
      job.stop();
      periodEnds.stop();
      await Promise.allSettled([...inFlight]);
    },
    next: () => job.nextRun(),
  };
}

import { Cron } from 'croner';
import { applyPeriodEnds } from '../domain/plans/plan-changes.ts';
import { previousUtcDay } from '../kernel/utc-day.ts';
import { type NightlyDeps, runNightly, SCHEDULED_FOLD_WAIT_MS } from './nightly.ts';

export const PERIOD_END_CRON = '7 * * * *';

/**
 * Runs the nightly pipeline on `ARBITER_NIGHTLY_CRON` (UTC) for the previous UTC day. Every
 * process may run a scheduler: the lease inside runNightly lets one of them do the work.
 */
export function startNightlyScheduler(
  ctx: NightlyDeps,
  log: { error(o: object, m: string): void },
) {
  const job = new Cron(ctx.config.nightlyCron, { timezone: 'UTC', protect: true }, async () => {
    try {
      await runNightly(ctx, previousUtcDay(ctx.clock.now()), SCHEDULED_FOLD_WAIT_MS);
    } catch (error) {
      log.error({ err: error }, 'nightly pipeline failed');
    }
  });
  // Limits follow the effective plan at once; this hourly pass records a paid period's end
  // in orgs.plan and the audit trail (no webhook arrives at that instant).
  const periodEnds = new Cron(PERIOD_END_CRON, { timezone: 'UTC', protect: true }, async () => {
    try {
      await applyPeriodEnds(ctx.db, ctx.clock.now());
    } catch (error) {
      log.error({ err: error }, 'applying ended billing periods failed');
    }
  });
  return {
    stop: () => {
      job.stop();
      periodEnds.stop();
    },
    next: () => job.nextRun(),
  };
}

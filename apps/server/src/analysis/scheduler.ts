import { Cron } from 'croner';
import type { Context } from '../context.ts';
import { previousUtcDay, runNightly } from './nightly.ts';

/**
 * Runs the nightly pipeline on `ARBITER_NIGHTLY_CRON` (UTC) for the previous UTC day. Every
 * process may run a scheduler: the lease inside runNightly lets one of them do the work.
 */
export function startNightlyScheduler(ctx: Context, log: { error(o: object, m: string): void }) {
  const job = new Cron(ctx.config.nightlyCron, { timezone: 'UTC', protect: true }, async () => {
    try {
      await runNightly(ctx, previousUtcDay(ctx.clock.now()));
    } catch (error) {
      log.error({ err: error }, 'nightly pipeline failed');
    }
  });
  return { stop: () => job.stop(), next: () => job.nextRun() };
}

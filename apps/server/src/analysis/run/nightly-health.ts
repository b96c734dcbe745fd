import { Cron } from 'croner';
import type { Database } from '../../db/connect.ts';
import { lastNightlyRun } from './nightly-log.ts';

/** The nightly pipeline as the platform owner's health view shows it: schedule and last run. */
export async function nightlyHealth(
  db: Database,
  schedule: { cron: string; schedulerEnabled: boolean },
  now: Date,
) {
  const next = new Cron(schedule.cron, { timezone: 'UTC', paused: true }).nextRun(now);
  return {
    schedule: schedule.cron,
    scheduler_in_this_process: schedule.schedulerEnabled,
    next_run_at: next?.toISOString() ?? null,
    last_run: await lastNightlyRun(db),
  };
}

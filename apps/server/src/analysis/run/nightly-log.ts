import { desc } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { nightlyRuns } from '../../db/schema.ts';

export type NightlyOutcome = 'succeeded' | 'failed';

/** An experiment of a run as the record counts it: `failed` ones with their reason. */
interface ExperimentOutcome {
  name: string;
  status: string;
  reason?: string;
}

/**
 * Runs `work` (one nightly run of `day`) and records how it ended; a failure is recorded and
 * rethrown; a run some of whose experiments failed is recorded failed, with
 * which and why. A run skipped because another process holds the lease (`ran: false`) is that
 * process's to record.
 */
export async function recordedRun<T extends { ran: boolean; experiments: ExperimentOutcome[] }>(
  db: Database,
  run: { day: string; startedAt: Date; finishedAt: () => Date },
  work: () => Promise<T>,
): Promise<T> {
  const record = (outcome: NightlyOutcome, experiments: number, error: string | null) =>
    db.insert(nightlyRuns).values({
      day: run.day,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt(),
      outcome,
      experiments,
      error,
    });
  let result: T;
  try {
    result = await work();
  } catch (error) {
    // Recording may fail for the same reason the run did (a lost database): the run's error wins.
    await record('failed', 0, error instanceof Error ? error.message : String(error)).catch(
      () => {},
    );
    throw error;
  }
  if (!result.ran) return result;
  const failed = failedExperiments(result.experiments);
  await record(failed ? 'failed' : 'succeeded', result.experiments.length, failed);
  return result;
}

/**
 * The experiments a run could not analyse, and why, as the record's error; null when none.
 * Their runs stored nothing: the next nightly pass runs them again.
 */
function failedExperiments(experiments: readonly ExperimentOutcome[]): string | null {
  const failed = experiments
    .filter((e) => e.status === 'failed')
    .map((e) => `${e.name}: ${e.reason}`);
  if (failed.length === 0) return null;
  return `${failed.length} of ${experiments.length} experiments failed and are retried on the next run; ${failed.join('; ')}`;
}

/** The most recently finished nightly run, or null when none has run yet. */
export async function lastNightlyRun(db: Database) {
  const [last] = await db.select().from(nightlyRuns).orderBy(desc(nightlyRuns.finishedAt)).limit(1);
  if (last === undefined) return null;
  return {
    day: last.day,
    started_at: last.startedAt.toISOString(),
    finished_at: last.finishedAt.toISOString(),
    outcome: last.outcome as NightlyOutcome,
    experiments: last.experiments,
    error: last.error,
  };
}

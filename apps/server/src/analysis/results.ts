import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { analysisRuns } from '../db/schema.ts';
import { AnalysisError } from './outcomes.ts';
import { availableLabels, presentRun } from './run-store.ts';

function collecting(experimentId: string, label?: string): AnalysisError {
  return new AnalysisError(
    'results-collecting',
    label === undefined
      ? `Experiment ${experimentId} is collecting: results appear after the nightly run once every arm has enough evaluated events`
      : `No computed results for ${label}; see available_days of the default view`,
  );
}

/**
 * The run the results route serves: the one named by `label`, else the most recently
 * computed run (so a nightly run landing after a manual one becomes the default view).
 */
export async function readResults(
  db: Database,
  experimentId: string,
  label: string | undefined,
  /** The problem of the default view while collecting; the generic one when absent. */
  collectingProblem?: () => Promise<AnalysisError>,
) {
  const base = and(eq(analysisRuns.experimentId, experimentId), eq(analysisRuns.hasResults, true));
  const [run] = await db
    .select()
    .from(analysisRuns)
    .where(label === undefined ? base : and(base, eq(analysisRuns.label, label)))
    .orderBy(desc(analysisRuns.computedAt))
    .limit(1);
  if (!run)
    throw label === undefined && collectingProblem
      ? await collectingProblem()
      : collecting(experimentId, label);
  return presentRun(run, await availableLabels(db, experimentId));
}

/** The default view of every experiment of the org that has computed results. */
export async function readSummary(db: Database, orgId: string) {
  const runs = await db
    .selectDistinctOn([analysisRuns.experimentId])
    .from(analysisRuns)
    .where(and(eq(analysisRuns.orgId, orgId), eq(analysisRuns.hasResults, true)))
    .orderBy(analysisRuns.experimentId, desc(analysisRuns.computedAt));
  return Promise.all(
    runs.map(async (run) => presentRun(run, await availableLabels(db, run.experimentId))),
  );
}

import type { Database } from '../../db/connect.ts';
import type { offlineRuns } from '../../db/schema.ts';
import { enqueueWebhookEvent } from './outbox.ts';

type RunRow = typeof offlineRuns.$inferSelect;
type Gates = Record<string, { passed: boolean; reasons: string[] }>;

/** The dashboard's page of one offline run, relative to where the dashboard is served. */
export const offlineRunLink = (experimentId: string, runId: string) =>
  `/experiments/${experimentId}/offline/${runId}`;

/**
 * Queues `offline_run.completed` in the transaction that ends the run: `passed` is whether
 * every treatment passed its gate (null when the run failed and has no statistics), `gates`
 * each treatment's verdict and reasons.
 */
export async function enqueueOfflineRunEvent(
  tx: Pick<Database, 'select' | 'insert'>,
  run: RunRow,
  now: Date,
): Promise<void> {
  const gates = ((run.result as { gates?: Gates } | null)?.gates ?? null) as Gates | null;
  const verdicts = gates === null ? [] : Object.values(gates);
  const data = {
    run_id: run.id,
    experiment_id: run.experimentId,
    experiment_version: run.experimentVersion,
    status: run.status as 'complete' | 'failed',
    passed: run.status === 'complete' ? verdicts.every((g) => g.passed) : null,
    gates,
    failure_reason: run.failureReason,
    link: offlineRunLink(run.experimentId, run.id),
  };
  await enqueueWebhookEvent(tx, run.orgId, { type: 'offline_run.completed', data }, now);
}

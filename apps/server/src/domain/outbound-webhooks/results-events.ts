import type { Database } from '../../db/connect.ts';
import { enqueueWebhookEvent } from './outbox.ts';

/** What a stored run tells the results events. */
export interface StoredRunFacts {
  orgId: string;
  experimentId: string;
  label: string;
  kind: 'nightly' | 'manual';
  final: boolean;
  collecting: boolean;
  recommendation: string;
  treatment: string | null;
  violations: number;
}

/** The dashboard's page of one run's results, relative to where the dashboard is served. */
export const resultsLink = (experimentId: string, label: string) =>
  `/experiments/${experimentId}/results?run=${encodeURIComponent(label)}`;

/**
 * Queues `results.published`, or `results.halted` when the SRM gate halted the run, in the
 * run's own transaction, for a nightly or final run stored for the first time. A night re-run
 * replaces its row and publishes nothing again; a manual run is preliminary and a collecting
 * one has no results, so neither publishes.
 */
export async function enqueueRunEvent(
  tx: Pick<Database, 'select' | 'insert'>,
  run: StoredRunFacts,
  firstStored: boolean,
  now: Date,
): Promise<void> {
  if (!firstStored || run.collecting || (run.kind === 'manual' && !run.final)) return;
  const data = {
    experiment_id: run.experimentId,
    day: run.label,
    final: run.final,
    recommendation: run.recommendation,
    treatment: run.treatment,
    violations: run.violations,
    link: resultsLink(run.experimentId, run.label),
  };
  const type = run.recommendation === 'halted' ? 'results.halted' : 'results.published';
  await enqueueWebhookEvent(tx, run.orgId, { type, data }, now);
}

/** Queues `guardrail.violated` for one violation audited for the first time. */
export async function enqueueViolationEvent(
  tx: Pick<Database, 'select' | 'insert'>,
  orgId: string,
  data: { experiment_id: string; run: string; metric: string; treatment: string },
  now: Date,
): Promise<void> {
  await enqueueWebhookEvent(
    tx,
    orgId,
    {
      type: 'guardrail.violated',
      data: { ...data, link: resultsLink(data.experiment_id, data.run) },
    },
    now,
  );
}

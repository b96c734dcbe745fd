import type { Database } from '../../db/connect.ts';
import type { experiments } from '../../db/schema.ts';
import type { WebhookEventType } from './event-types.ts';
import { enqueueWebhookEvent } from './outbox.ts';

type ExperimentRow = typeof experiments.$inferSelect;

/** The event each lifecycle move sends; unarchive sends none. */
const EVENT_OF: Record<string, WebhookEventType | undefined> = {
  start: 'experiment.started',
  stop: 'experiment.stopped',
  archive: 'experiment.archived',
};

/**
 * Queues the lifecycle move's event in the move's own transaction: `data` names the
 * experiment, the status it left and, for a stop, the conclusion, served variant and reason.
 */
export async function enqueueLifecycleEvent(
  tx: Pick<Database, 'select' | 'insert'>,
  move: string,
  from: string,
  row: ExperimentRow,
  now: Date,
): Promise<void> {
  const type = EVENT_OF[move];
  if (type === undefined) return;
  const data: Record<string, unknown> = {
    experiment_id: row.id,
    name: row.name,
    from,
    to: row.status,
  };
  if (type === 'experiment.stopped') {
    data.conclusion = row.stopConclusion;
    data.variant = row.servedVariant;
    data.reason = row.stopReason;
  }
  await enqueueWebhookEvent(tx, row.orgId, { type, data }, now);
}

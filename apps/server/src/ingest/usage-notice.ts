import type { Database } from '../db/connect.ts';
import { enqueueUsageThresholds } from '../domain/outbound-webhooks/usage-events.ts';
import type { UsageNotice } from './event-log.ts';
import { monthUsage } from './meter-lock.ts';

/**
 * Queues the thresholds the month's usage `used` reaches. Under the allowance's lock `used` is
 * exact and the notice goes in the batch's own transaction; metered at the Kafka fold, it is
 * the committed meter plus the batch, short by the events not folded yet.
 */
export async function noteUsageAt(
  tx: Database,
  orgId: string,
  month: string,
  used: number,
  usage: UsageNotice | undefined,
): Promise<void> {
  if (usage === undefined) return;
  await enqueueUsageThresholds(tx, { orgId, month, used, allowance: usage.allowance }, usage.now);
}

/**
 * Without the allowance's lock (overage billed, or limits off) batches meter different rows
 * concurrently and none sees the others' uncommitted counts, so no one of them knows it crossed
 * a threshold: the month's committed usage is read once the batch is metered, and the first
 * batch that sees a threshold reached queues it (its key makes it once).
 */
export async function noteUsageUnlocked(
  db: Database,
  orgId: string,
  month: string,
  appended: number,
  usage: UsageNotice | undefined,
): Promise<void> {
  if (usage === undefined || appended === 0) return;
  await db.transaction(async (tx) => {
    await noteUsageAt(tx, orgId, month, await monthUsage(tx, orgId, month), usage);
  });
}

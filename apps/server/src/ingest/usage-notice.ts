import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connect.ts';
import { usageCounters } from '../db/schema.ts';
import { enqueueUsageThresholds } from '../domain/outbound-webhooks/usage-events.ts';
import type { UsageNotice } from './event-log.ts';

/**
 * Under the allowance's lock: the month's usage after this batch is known exactly, and the
 * thresholds it reaches are queued in the batch's own transaction.
 */
export async function noteUsageLocked(
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
    const [row] = await tx
      .select({ events: sql<number>`coalesce(sum(${usageCounters.events}), 0)` })
      .from(usageCounters)
      .where(and(eq(usageCounters.orgId, orgId), eq(usageCounters.month, month)));
    const used = Number(row?.events ?? 0);
    await noteUsageLocked(tx, orgId, month, used, usage);
  });
}

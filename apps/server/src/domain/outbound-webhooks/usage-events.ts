import type { Database } from '../../db/connect.ts';
import { enqueueWebhookEventOnce } from './outbox.ts';

/** The shares of the month's event allowance that send `usage.threshold`, each once a month. */
export const USAGE_THRESHOLDS = [80, 100] as const;

/**
 * Queues `usage.threshold` for each threshold the org's month has reached, in the transaction
 * that metered the events, once per org, month and threshold: the key
 * `usage.threshold:<org>:<month>:<percent>` is taken by the first transaction that sees the
 * month at or past it, and every later or concurrent one finds it taken. Judging "reached"
 * rather than "crossed" means a batch that skipped 80 % on its way to 100 % sends both.
 */
export async function enqueueUsageThresholds(
  tx: Pick<Database, 'select' | 'insert'>,
  usage: { orgId: string; month: string; used: number; allowance: number },
  now: Date,
): Promise<void> {
  for (const percent of USAGE_THRESHOLDS) {
    const threshold = Math.ceil((usage.allowance * percent) / 100);
    if (usage.allowance <= 0 || usage.used < threshold) continue;
    const data = {
      metric: 'events',
      percent,
      month: usage.month,
      used: usage.used,
      allowance: usage.allowance,
    };
    await enqueueWebhookEventOnce(
      tx,
      usage.orgId,
      `usage.threshold:${usage.orgId}:${usage.month}:${percent}`,
      { type: 'usage.threshold', data },
      now,
    );
  }
}

import { and, eq, isNull } from 'drizzle-orm';
import type { Transaction } from '../db/connect.ts';
import { apiKeys, webhookSecrets } from '../db/schema.ts';
import { announceChange } from './change-feed.ts';

/**
 * A deleted org's keys and business-event secret stop working in the deletion's transaction.
 * The caller holds the org's row lock (the tombstone's update takes it), so a rotation waiting
 * on `lockOrgCredentials` sees the deletion and mints nothing. Every process drops its cached
 * key lookups when this commits.
 */
export async function revokeOrgCredentials(
  tx: Transaction,
  orgId: string,
  now: Date,
): Promise<void> {
  await tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)));
  await tx
    .update(webhookSecrets)
    .set({ revokedAt: now })
    .where(and(eq(webhookSecrets.orgId, orgId), isNull(webhookSecrets.revokedAt)));
  await announceChange(tx, { kind: 'keys' });
}

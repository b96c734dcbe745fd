import { eq, sql } from 'drizzle-orm';
import type { Transaction } from '../db/connect.ts';
import { orgs } from '../db/schema.ts';
import { announceChange } from './change-feed.ts';

/**
 * Moves the org's config version on, inside the change's transaction, and tells the other
 * processes: every cached /v1/config of the org (ETag, clients' polls) is then stale.
 */
export async function bumpConfigVersion(tx: Transaction, orgId: string): Promise<void> {
  await tx
    .update(orgs)
    .set({ configVersion: sql`${orgs.configVersion} + 1` })
    .where(eq(orgs.id, orgId));
  await announceChange(tx, { kind: 'config', orgId });
}

import { eq } from 'drizzle-orm';
import type { Transaction } from '../db/connect.ts';
import { orgs } from '../db/schema.ts';
import { DomainError } from './outcomes.ts';

/**
 * Serializes every change of an org's credentials: key rotations, webhook-secret rotations and
 * the org's deletion. Two rotations at once would each revoke the old row and then both insert
 * a new active one, and the second insert breaks the one-active-per-scope index (a 500 that
 * logged the failing INSERT). Locking the org's row first makes the second wait for the
 * first's commit, then revoke the key the first made: each answers 201, the later one wins.
 * FOR NO KEY UPDATE is the lock the deletion's own update of the row takes, and it leaves the
 * foreign-key checks of ordinary writes (FOR KEY SHARE) alone.
 */
export async function lockOrgCredentials(tx: Transaction, orgId: string): Promise<void> {
  const [org] = await tx
    .select({ deletedAt: orgs.deletedAt })
    .from(orgs)
    .where(eq(orgs.id, orgId))
    .for('no key update');
  // A deletion that committed while this waited: nothing may be minted for the org any more.
  if (org === undefined || org.deletedAt !== null)
    throw new DomainError('org-deleted', 'This organization was deleted at the identity provider');
}

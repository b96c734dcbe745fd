import { eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { billingSubscriptions, orgs } from '../../db/schema.ts';
import { UUID } from '../../schemas/uuid.ts';
import { orgOfCustomer } from './billing-account.ts';

export interface BillingOrgClues {
  /** `metadata.arbiter_org_id` of the session or subscription. */
  orgId: string | null;
  customerId: string | null;
  subscriptionId: string | null;
}

async function orgExists(db: Pick<Database, 'select'>, orgId: string): Promise<boolean> {
  if (!UUID.test(orgId)) return false;
  const [org] = await db.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId));
  return org !== undefined;
}

/**
 * The org a billing event concerns: its metadata's org id, else the org whose customer it
 * names (stored at checkout), else the org the subscription was already applied to.
 */
export async function orgOfBillingEvent(
  db: Pick<Database, 'select'>,
  clues: BillingOrgClues,
): Promise<string | null> {
  if (clues.orgId !== null && (await orgExists(db, clues.orgId))) return clues.orgId;
  if (clues.customerId !== null) {
    const byCustomer = await orgOfCustomer(db, clues.customerId);
    if (byCustomer !== null) return byCustomer;
  }
  if (clues.subscriptionId === null) return null;
  const [known] = await db
    .select({ orgId: billingSubscriptions.orgId })
    .from(billingSubscriptions)
    .where(eq(billingSubscriptions.subscriptionId, clues.subscriptionId));
  return known?.orgId ?? null;
}

import { eq } from 'drizzle-orm';
import type { Database } from '../../db/connect.ts';
import { billingAccounts, orgs } from '../../db/schema.ts';
import type { BillingProvider } from '../../kernel/ports.ts';

export async function customerOf(
  db: Pick<Database, 'select'>,
  orgId: string,
): Promise<string | null> {
  const [account] = await db
    .select({ customerId: billingAccounts.customerId })
    .from(billingAccounts)
    .where(eq(billingAccounts.orgId, orgId));
  return account?.customerId ?? null;
}

/**
 * The org's customer, created at the provider on first use only. Two first checkouts at once
 * send the same idempotency key, so the provider answers both with one customer.
 */
export async function ensureCustomer(
  db: Database,
  billing: BillingProvider,
  orgId: string,
): Promise<string> {
  const existing = await customerOf(db, orgId);
  if (existing !== null) return existing;
  const [org] = await db.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, orgId));
  const { id } = await billing.createCustomer({ orgId, name: org?.name ?? null });
  await db
    .insert(billingAccounts)
    .values({ orgId, customerId: id })
    .onConflictDoNothing({ target: billingAccounts.orgId });
  return (await customerOf(db, orgId)) ?? id;
}

/** Remembers the customer a completed checkout names, unless the org already has one. */
export async function linkCustomer(
  db: Pick<Database, 'insert'>,
  orgId: string,
  customerId: string,
): Promise<void> {
  // Neither an org's first customer nor a customer already linked elsewhere is replaced.
  await db.insert(billingAccounts).values({ orgId, customerId }).onConflictDoNothing();
}

/** The org a customer id belongs to, for events whose metadata does not name it. */
export async function orgOfCustomer(
  db: Pick<Database, 'select'>,
  customerId: string,
): Promise<string | null> {
  const [account] = await db
    .select({ orgId: billingAccounts.orgId })
    .from(billingAccounts)
    .where(eq(billingAccounts.customerId, customerId));
  return account?.orgId ?? null;
}

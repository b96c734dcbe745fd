import type { Database } from '../../db/connect.ts';
import type { BillingProvider } from '../../kernel/ports.ts';
import { DomainError } from '../outcomes.ts';
import { customerOf } from './billing-account.ts';
import { configuredBilling } from './checkout.ts';

/** The hosted billing portal of the org's customer; 409 when the org never checked out. */
export async function openPortal(
  db: Database,
  billing: BillingProvider | null,
  orgId: string,
  returnUrl: string,
): Promise<{ url: string }> {
  const provider = configuredBilling(billing);
  const customerId = await customerOf(db, orgId);
  if (customerId === null) {
    throw new DomainError(
      'no-billing-account',
      'Your org has no billing account yet: start a checkout first',
    );
  }
  return provider.createPortalSession({ customerId, returnUrl });
}

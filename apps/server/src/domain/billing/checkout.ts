import type { Database } from '../../db/connect.ts';
import type { BillingProvider } from '../../kernel/ports.ts';
import { DomainError } from '../outcomes.ts';
import { effectivePlan } from '../plans/effective-plan.ts';
import { ensureCustomer } from './billing-account.ts';
import type { PaidPlan, PlanPrices } from './plan-prices.ts';

export interface CheckoutRequest {
  orgId: string;
  plan: PaidPlan;
  successUrl: string;
  cancelUrl: string;
}

/** The provider, when billing is configured; refuses with 409 otherwise. */
export function configuredBilling(billing: BillingProvider | null): BillingProvider {
  if (billing === null) {
    throw new DomainError(
      'billing-not-configured',
      'Billing is not configured on this server (ARBITER_STRIPE_SECRET_KEY is unset)',
    );
  }
  return billing;
}

/**
 * A hosted checkout for a paid plan. The org id travels in the session's and the
 * subscription's metadata, so the billing webhook finds the org even before the customer
 * id is known here.
 */
export async function startCheckout(
  db: Database,
  billing: BillingProvider | null,
  prices: PlanPrices,
  request: CheckoutRequest,
  now: Date,
): Promise<{ url: string }> {
  const provider = configuredBilling(billing);
  const priceId = prices[request.plan];
  if (priceId === null) {
    throw new DomainError(
      'billing-not-configured',
      `No price is configured for the ${request.plan} plan (ARBITER_STRIPE_PRICE_${request.plan.toUpperCase()})`,
    );
  }
  const current = await effectivePlan(db, request.orgId, now);
  if (current.plan === request.plan) {
    throw new DomainError(
      'plan-already-active',
      `Your org is already on the ${request.plan} plan (from ${current.source})`,
      { plan: current.plan, plan_source: current.source },
    );
  }
  const customerId = await ensureCustomer(db, provider, request.orgId);
  return provider.createCheckoutSession({
    customerId,
    priceId,
    orgId: request.orgId,
    successUrl: request.successUrl,
    cancelUrl: request.cancelUrl,
  });
}

import Stripe from 'stripe';
import type { StripeConfig } from '../../config.ts';
import type { BillingProvider, BillingSubscription } from '../../kernel/ports.ts';
import { IntegrationError } from '../outcomes.ts';
import { stripeClient } from './stripe-client.ts';
import { ORG_METADATA_KEY, subscriptionOf } from './stripe-objects.ts';

async function calling<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    throw new IntegrationError(
      'billing-provider-failed',
      `Stripe refused or did not answer the ${what}: ${error.message}`,
    );
  }
}

/** Customers, hosted checkout and portal sessions, subscriptions: through the stripe SDK. */
export class StripeBilling implements BillingProvider {
  constructor(private readonly stripe: Stripe) {}

  async createCustomer(input: { orgId: string; name: string | null }) {
    const customer = await calling('customer creation', () =>
      this.stripe.customers.create(
        {
          ...(input.name === null ? {} : { name: input.name }),
          metadata: { [ORG_METADATA_KEY]: input.orgId },
        },
        { idempotencyKey: `arbiter-customer-${input.orgId}` },
      ),
    );
    return { id: customer.id };
  }

  async createCheckoutSession(input: {
    customerId: string;
    priceId: string;
    orgId: string;
    successUrl: string;
    cancelUrl: string;
  }) {
    const metadata = { [ORG_METADATA_KEY]: input.orgId };
    const session = await calling('checkout session', () =>
      this.stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: input.customerId,
        client_reference_id: input.orgId,
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        metadata,
        subscription_data: { metadata },
      }),
    );
    if (session.url === null) {
      throw new IntegrationError('billing-provider-failed', 'Stripe returned no checkout URL');
    }
    return { url: session.url };
  }

  async createPortalSession(input: { customerId: string; returnUrl: string }) {
    const session = await calling('billing portal session', () =>
      this.stripe.billingPortal.sessions.create({
        customer: input.customerId,
        return_url: input.returnUrl,
      }),
    );
    return { url: session.url };
  }

  async retrieveSubscription(id: string): Promise<BillingSubscription> {
    return subscriptionOf(
      await calling('subscription lookup', () => this.stripe.subscriptions.retrieve(id)),
    );
  }
}

/** The billing provider when a Stripe secret key is configured; null otherwise. */
export function createBilling(config: StripeConfig): BillingProvider | null {
  return config.secretKey === null ? null : new StripeBilling(stripeClient(config));
}

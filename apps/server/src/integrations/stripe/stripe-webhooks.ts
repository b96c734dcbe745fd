import Stripe from 'stripe';
import type { StripeConfig } from '../../config.ts';
import type { BillingWebhookCheck, BillingWebhookVerifier } from '../../kernel/ports.ts';
import { stripeClient } from './stripe-client.ts';
import { billingEventOf } from './stripe-objects.ts';

/** Stripe's own default: a delivery signed more than five minutes ago is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Verifies `Stripe-Signature` (sent as `Billing-Signature` too) with the stripe library. */
export class StripeWebhookVerifier implements BillingWebhookVerifier {
  constructor(
    private readonly stripe: Stripe,
    private readonly secret: string,
  ) {}

  verify(rawBody: string, signatureHeader: string | undefined, now: Date): BillingWebhookCheck {
    if (signatureHeader === undefined) return { ok: false, reason: 'no signature header' };
    try {
      const event = this.stripe.webhooks.constructEvent(
        rawBody,
        signatureHeader,
        this.secret,
        SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        // The library's receivedAt is in milliseconds, like Date.now().
        now.getTime(),
      );
      return { ok: true, event: billingEventOf(event) };
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        return { ok: false, reason: error.message };
      }
      throw error;
    }
  }
}

/** The verifier when an endpoint secret is configured; null otherwise. */
export function createBillingWebhooks(config: StripeConfig): BillingWebhookVerifier | null {
  if (config.webhookSecret === null) return null;
  return new StripeWebhookVerifier(stripeClient(config), config.webhookSecret);
}

import Stripe from 'stripe';
import type { StripeConfig } from '../../config.ts';

/** A request that hangs is refused after this long; the caller sees a 502 and may retry. */
export const STRIPE_TIMEOUT_MS = 20_000;

/**
 * The official SDK pointed at the configured API origin (Stripe itself, or a local server
 * speaking its API in tests). Webhook verification needs no API key, so a placeholder serves
 * when only the webhook secret is set.
 */
export function stripeClient(config: StripeConfig): Stripe {
  const base = new URL(config.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(config.secretKey ?? 'sk_unset', {
    host: base.hostname,
    port: base.port === '' ? (protocol === 'http' ? 80 : 443) : Number(base.port),
    protocol,
    timeout: STRIPE_TIMEOUT_MS,
    maxNetworkRetries: 2,
    telemetry: false,
  });
}

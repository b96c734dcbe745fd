import type { FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { BillingEvent } from '../kernel/ports.ts';
import { ProblemError } from './problems.ts';

declare module 'fastify' {
  interface FastifyRequest {
    billingEvent: BillingEvent | null;
  }
}

/** The contract names `Billing-Signature`; Stripe itself sends `Stripe-Signature` (docs/decisions/identity-and-billing.md#stripe). */
export const BILLING_SIGNATURE_HEADERS = ['billing-signature', 'stripe-signature'] as const;

function signatureOf(request: FastifyRequest): string | undefined {
  for (const name of BILLING_SIGNATURE_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * Verifies the billing provider's signature over the body as sent, before the body is
 * validated: an unsigned request learns nothing about the expected shape.
 */
export function billingSignatureHook(ctx: Pick<Context, 'billingWebhooks' | 'clock'>) {
  return async (request: FastifyRequest): Promise<void> => {
    if (ctx.billingWebhooks === null) {
      throw new ProblemError(
        'invalid-signature',
        'Billing webhooks are not configured on this server (ARBITER_STRIPE_WEBHOOK_SECRET is unset)',
      );
    }
    const check = ctx.billingWebhooks.verify(
      request.rawBody ?? '',
      signatureOf(request),
      ctx.clock.now(),
    );
    if (!check.ok)
      throw new ProblemError('invalid-signature', `Billing webhook refused: ${check.reason}`);
    request.billingEvent = check.event;
  };
}

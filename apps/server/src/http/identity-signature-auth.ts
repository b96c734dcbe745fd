import type { FastifyRequest } from 'fastify';
import { Webhook, WebhookVerificationError } from 'svix';
import type { Context } from '../context.ts';
import { ProblemError } from './problems.ts';

/** The headers Svix signs an identity provider's delivery with. */
export const SVIX_HEADERS = ['svix-id', 'svix-timestamp', 'svix-signature'] as const;

function invalid(reason: string): ProblemError {
  return new ProblemError('invalid-signature', `Identity webhook refused: ${reason}`);
}

const REASONS: Record<string, string> = {
  'Message timestamp too old':
    'svix-timestamp is more than 5 minutes old (a stale delivery, or a replay)',
  'Message timestamp too new': 'svix-timestamp is more than 5 minutes in the future',
  'No matching signature found': 'no signature in svix-signature matches the body',
  'Invalid Signature Headers': 'svix-timestamp is not a number of seconds',
};

/**
 * Verifies the Svix signature of an identity webhook with the `svix` library, against the
 * endpoint's signing secret (ARBITER_CLERK_WEBHOOK_SECRET); runs as preValidation, so an
 * unsigned body is refused before it is read. The library also refuses stale timestamps.
 */
export function identitySignatureHook(ctx: Pick<Context, 'config'>) {
  const secret = ctx.config.clerkWebhookSecret;
  const webhook = secret === null ? null : new Webhook(secret);
  return async (request: FastifyRequest): Promise<void> => {
    if (webhook === null)
      throw invalid('this server has no ARBITER_CLERK_WEBHOOK_SECRET to verify it with');
    const headers: Record<string, string> = {};
    for (const name of SVIX_HEADERS) {
      const value = request.headers[name];
      if (typeof value !== 'string' || value === '') throw invalid(`the ${name} header is missing`);
      headers[name] = value;
    }
    try {
      webhook.verify(request.rawBody ?? '', headers);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      throw invalid(REASONS[error.message] ?? error.message);
    }
  };
}

import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { signingSecretOf } from '../domain/webhook-secrets.ts';
import type { App } from './app-types.ts';
import { SIGNATURE_HEADER, verifyBusinessSignature } from './business-signature.ts';
import { ProblemError } from './problems.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: string | null;
    signedOrgId: string | null;
  }
}

function invalid(reason: string): ProblemError {
  return new ProblemError('invalid-signature', `Business event refused: ${reason}`);
}

/** JSON bodies parsed as usual and also kept as sent, for a signature over the exact bytes. */
export function keepRawJsonBodies(app: App): void {
  app.decorateRequest('rawBody', null);
  app.decorateRequest('signedOrgId', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ProblemError('malformed-json', 'The body could not be parsed as JSON'), undefined);
    }
  });
}

/**
 * The signed plane's edge: the body kept as sent (the signature covers the exact bytes), a
 * per-org rate limit, and the signature check as a preValidation hook, like the session and
 * API-key hooks of the other planes.
 */
export async function registerSignedBodies(app: App, ctx: Pick<Context, 'config'>): Promise<void> {
  keepRawJsonBodies(app);
  await app.register(rateLimit, {
    hook: 'preHandler',
    timeWindow: 60_000,
    keyGenerator: (request) => `business:${request.signedOrgId}`,
    max: ctx.config.rateLimitSecretPerMinute,
    errorResponseBuilder: (_request, context) =>
      new ProblemError(
        'rate-limited',
        `More than ${context.max} business events per minute for this org; retry in ${context.after}`,
      ),
  });
}

/**
 * Verifies `Arbiter-Signature` with the webhook secret of the org that owns the body's
 * experiment; runs before the rate limit (preHandler) so the limit applies per signing org.
 */
export function businessSignatureHook(ctx: Pick<Context, 'db' | 'secretBox' | 'clock'>) {
  return async (request: FastifyRequest): Promise<void> => {
    const body = request.body as { experiment_id?: unknown };
    const experimentId = typeof body?.experiment_id === 'string' ? body.experiment_id : '';
    const signing = await signingSecretOf(ctx.db, ctx.secretBox, experimentId);
    // An unknown experiment and a missing secret look alike: nothing to verify against.
    if (signing === null)
      throw invalid('no webhook secret is configured for this experiment’s org');
    const header = request.headers[SIGNATURE_HEADER];
    const check = verifyBusinessSignature(
      typeof header === 'string' ? header : undefined,
      signing.secret,
      request.rawBody ?? '',
      ctx.clock.now(),
    );
    if (!check.ok) throw invalid(check.reason);
    request.signedOrgId = signing.orgId;
  };
}

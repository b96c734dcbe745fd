import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { CONTROL_HEADER } from '../control-file.ts';
import { comparableEmail, type SessionClaims } from '../domain/identity/session-claims.ts';
import { ProblemError } from './problems.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The platform owner's sign-in email; null for the local control token. */
    platformOwnerEmail: string | null;
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Platform-owner routes: a session whose sign-in email is in ARBITER_PLATFORM_OWNER_EMAILS
 * (docs/decisions/identity-and-billing.md#platform-owners), or the local control token that a running server shares with the
 * `arbiter` command through its data dir (so the CLI never opens an embedded database
 * beside the server).
 */
export function platformOwnerHook(ctx: Pick<Context, 'config' | 'controlToken' | 'sessions'>) {
  return async (request: FastifyRequest): Promise<void> => {
    const control = request.headers[CONTROL_HEADER];
    if (typeof control === 'string') {
      if (sameSecret(control, ctx.controlToken)) return;
      throw new ProblemError('invalid-credential', 'The control token is not this server’s');
    }
    const header = request.headers.authorization;
    const token = header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (!token)
      throw new ProblemError(
        'missing-credential',
        'Send a platform owner’s session token as Authorization: Bearer <token>',
      );
    let claims: SessionClaims;
    try {
      claims = await ctx.sessions.verify(token);
    } catch {
      throw new ProblemError(
        'invalid-credential',
        'The session token is malformed, expired or not from a trusted issuer',
      );
    }
    const email = ownerEmailOf(claims, ctx.config.platformOwnerEmails);
    if (email === null)
      throw new ProblemError('insufficient-role', 'Only platform owners may use this route');
    request.platformOwnerEmail = email;
  };
}

/**
 * The caller's email when it is a configured owner's: compared as ASCII-lowercased text only
 * (non-ASCII addresses never match), and refused when the token says it is not verified.
 */
export function ownerEmailOf(claims: SessionClaims, owners: readonly string[]): string | null {
  if (claims.email === null || claims.emailVerified === false) return null;
  const email = comparableEmail(claims.email);
  return email !== null && owners.includes(email) ? email : null;
}

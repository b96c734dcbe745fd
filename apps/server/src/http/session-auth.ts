import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { Caller } from '../domain/identity/identity.ts';
import {
  type OrgRole,
  roleAtLeast,
  type SessionClaims,
} from '../domain/identity/session-claims.ts';
import type { App } from './app-types.ts';
import { ProblemError } from './problems.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    /** The verified session token's claims, beside the caller they resolved to. */
    sessionClaims: SessionClaims | null;
  }
}

/** The caller of a session route; the session hook guarantees it is set. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new Error('session route without the session hook');
  return request.caller;
}

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') {
    throw new ProblemError(
      'missing-credential',
      'Send your session token as Authorization: Bearer <token>',
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match)
    throw new ProblemError(
      'invalid-credential',
      'The Authorization header must be "Bearer <token>"',
    );
  return match[1] as string;
}

/** What the session hook uses: the token's verifier and the caller's resolver. */
export type SessionDeps = Pick<Context, 'sessions' | 'identity'>;

/** onRequest hook of every dashboard route: verifies the JWT and resolves the caller's org. */
export function sessionHook(ctx: SessionDeps) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const token = bearerToken(request);
    let claims: Awaited<ReturnType<Context['sessions']['verify']>>;
    try {
      claims = await ctx.sessions.verify(token);
    } catch (error) {
      const reason = (error as { code?: string }).code ?? 'ERR_JWT_INVALID';
      const detail: Record<string, string> = {
        ERR_JWT_EXPIRED: 'The session token has expired',
        ERR_JWT_CLAIM_VALIDATION_FAILED:
          'The session token was issued by another issuer or lacks a required claim',
        ERR_JWKS_NO_MATCHING_KEY: 'The session token is not signed by a key this server trusts',
        ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'The session token signature does not verify',
        ERR_AZP_NOT_ALLOWED:
          'The session token was issued to another party (azp) than this deployment',
        ERR_CLAIM_NOT_STORABLE:
          'A claim of the session token contains a NUL character or an unpaired surrogate',
      };
      throw new ProblemError(
        'invalid-credential',
        detail[reason] ?? 'The session token is malformed or not valid',
      );
    }
    const { orgExternalId } = claims;
    if (orgExternalId === null) {
      throw new ProblemError(
        'no-active-org',
        'The session token carries no org_id; pick an organization first',
      );
    }
    request.caller = await ctx.identity.resolve({ ...claims, orgExternalId });
    request.sessionClaims = claims;
  };
}

/** preHandler that admits callers with at least `role` in the org. */
export function requireRole(role: OrgRole) {
  return async (request: FastifyRequest): Promise<void> => {
    const caller = callerOf(request);
    if (!roleAtLeast(caller.role, role)) {
      throw new ProblemError(
        'insufficient-role',
        `This needs the ${role} role or higher; you are ${caller.role}`,
      );
    }
  };
}

/**
 * Puts a plane behind a dashboard session: the request slots the session hook fills (the
 * caller and the token's claims), then the hook itself.
 */
export function useSession(app: App, ctx: SessionDeps): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('sessionClaims', null);
  app.addHook('onRequest', sessionHook(ctx));
}

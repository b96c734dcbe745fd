import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OrgRole } from '../domain/identity/session-claims.ts';
import { type ApiKeyDeps, apiKeyHook, keyCallerOf } from './api-key-auth.ts';
import type { App } from './app-types.ts';
import { ProblemError } from './problems.ts';
import { callerOf, requireRole, type SessionDeps, sessionHook } from './session-auth.ts';

/** Who calls a route that takes either credential: the org, and the user when a session. */
export interface OrgCaller {
  orgId: string;
  /** The session's user; null for the secret key, which acts for the org, not a person. */
  userId: string | null;
  via: 'session' | 'secret_key';
}

/**
 * onRequest hook of the routes a dashboard session of any org role and the org's secret key (a
 * CI job) may both call: a request with `Authorization` is a session and checked as one, else a
 * request with `X-API-Key` must carry the secret key; a publishable key is refused, since it
 * ships in client code. The org always comes from the credential.
 */
export function sessionOrSecretKeyHook(ctx: SessionDeps & ApiKeyDeps) {
  const session = sessionHook(ctx);
  const key = apiKeyHook(ctx, { secretOnly: true, authoritative: true });
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.headers.authorization !== undefined) {
      await session(request, reply);
      return;
    }
    if (request.headers['x-api-key'] === undefined) {
      throw new ProblemError(
        'missing-credential',
        'Send a session token as Authorization: Bearer <token>, or the secret key in X-API-Key',
      );
    }
    await new Promise<void>((resolve, reject) =>
      key(request, reply, (error?: Error) => (error ? reject(error) : resolve())),
    );
  };
}

/** The caller of a route behind `sessionOrSecretKeyHook`. */
export function orgCallerOf(request: FastifyRequest): OrgCaller {
  if (request.caller !== null) {
    const caller = callerOf(request);
    return { orgId: caller.orgId, userId: caller.userId, via: 'session' };
  }
  return { orgId: keyCallerOf(request).orgId, userId: null, via: 'secret_key' };
}

/**
 * preHandler of a route behind `sessionOrSecretKeyHook` that a session may call only with at
 * least `role` (the raw-event export: admins and owners); the secret key acts for the org and
 * passes. A member's session is a 403 insufficient-role.
 */
export function requireSessionRole(role: OrgRole) {
  const check = requireRole(role);
  return async (request: FastifyRequest): Promise<void> => {
    if (request.caller !== null) await check(request);
  };
}

/**
 * Puts a plane behind a session or the secret key: the request slots the hook fills (the
 * session's caller and claims, the key's caller), then the hook itself.
 */
export function useSessionOrSecretKey(app: App, ctx: SessionDeps & ApiKeyDeps): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('sessionClaims', null);
  app.decorateRequest('keyCaller', null);
  app.addHook('onRequest', sessionOrSecretKeyHook(ctx));
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import type { KeyScope } from '../domain/keys.ts';
import { ProblemError } from './problems.ts';

export interface KeyCaller {
  orgId: string;
  scope: KeyScope;
  /** Identifies the key for rate limiting without keeping the raw key around. */
  keyHash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    keyCaller: KeyCaller | null;
  }
}

export function keyCallerOf(request: FastifyRequest): KeyCaller {
  if (request.keyCaller === null) throw new Error('ingest route without the API-key hook');
  return request.keyCaller;
}

/** onRequest hook of the ingest plane: the org always comes from the key, never the request. */
export function apiKeyHook(ctx: Context, options: { secretOnly?: boolean } = {}) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const raw = request.headers['x-api-key'];
    if (typeof raw !== 'string' || raw.trim() === '') {
      throw new ProblemError(
        'missing-credential',
        'Send your Arbiter API key in the X-API-Key header',
      );
    }
    const found = await ctx.apiKeys.resolve(raw.trim());
    if (found === null) throw new ProblemError('invalid-credential', 'This API key is not known');
    if (found.revoked) {
      throw new ProblemError(
        'invalid-credential',
        'This API key was rotated away; use the current key of its scope',
      );
    }
    if (options.secretOnly && found.scope !== 'secret') {
      throw new ProblemError(
        'invalid-credential',
        'This route needs the secret key (svc_sk_); a publishable key may not use it',
      );
    }
    request.keyCaller = { orgId: found.orgId, scope: found.scope, keyHash: found.keyHash };
  };
}

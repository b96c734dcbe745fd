import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
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

const ROTATED_AWAY = 'This API key was rotated away; use the current key of its scope';

/** What the key hooks use: the key cache. */
export type ApiKeyDeps = Pick<Context, 'apiKeys'>;

type Resolved = Awaited<ReturnType<Context['apiKeys']['resolve']>>;

/** Why a key is refused, or undefined when it is admitted. */
function keyProblem(found: Resolved, options: KeyHookOptions): ProblemError | undefined {
  if (found === null) return new ProblemError('invalid-credential', 'This API key is not known');
  // Deletion revokes the org's keys too: say why, so nobody goes looking for a current key.
  if (found.orgDeleted) {
    return new ProblemError('invalid-credential', 'This API key is not valid: its org was deleted');
  }
  if (found.revoked) {
    return new ProblemError('invalid-credential', ROTATED_AWAY);
  }
  if (options.secretOnly && found.scope !== 'secret') {
    return new ProblemError(
      'invalid-credential',
      'This route needs the secret key (svc_sk_); a publishable key may not use it',
    );
  }
  return undefined;
}

/** The key's verdict: the problem to answer, or undefined with the caller set on the request. */
function admit(
  request: FastifyRequest,
  found: Resolved,
  options: KeyHookOptions,
): ProblemError | undefined {
  const problem = keyProblem(found, options);
  if (problem === undefined && found !== null)
    request.keyCaller = { orgId: found.orgId, scope: found.scope, keyHash: found.keyHash };
  return problem;
}

/**
 * The 401 for a key that a write found no longer active after the cache admitted it
 * (`InactiveKeyError`): the database says which case it is.
 */
export async function inactiveKeyProblem(ctx: ApiKeyDeps, keyHash: string): Promise<ProblemError> {
  const found = await ctx.apiKeys.lookupHash(keyHash);
  return keyProblem(found, {}) ?? new ProblemError('invalid-credential', ROTATED_AWAY);
}

export interface KeyHookOptions {
  /** Only the secret key is admitted (import). */
  secretOnly?: boolean;
  /**
   * The database decides, never the cache: routes that store what they are sent and cannot
   * check the key in their write. A rotation or an org's deletion on another process reaches
   * this process's cache through the change feed a moment after its 201; a write made with the
   * old key in that moment would be kept. (`POST /v1/events` admits from the cache and checks
   * the key in its write: `inactiveKeyProblem`.)
   */
  authoritative?: boolean;
  /**
   * The key may come as `Authorization: Bearer <key>` too, when X-API-Key is absent: OFREP's
   * generic providers are configured with either header.
   */
  bearer?: boolean;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key the request carries: X-API-Key, else (where admitted) the bearer token. */
function keyOf(request: FastifyRequest, options: KeyHookOptions): string {
  const raw = request.headers['x-api-key'];
  const key = typeof raw === 'string' ? raw.trim() : '';
  if (key !== '' || options.bearer !== true) return key;
  return BEARER.exec(request.headers.authorization ?? '')?.[1] ?? '';
}

function missingKeyDetail(options: KeyHookOptions): string {
  return options.bearer === true
    ? 'Send your Arbiter API key in the X-API-Key header or as Authorization: Bearer <key>'
    : 'Send your Arbiter API key in the X-API-Key header';
}

/**
 * onRequest hook of the ingest plane: the org always comes from the key, never the request.
 * A key found in the cache is admitted without a promise (the assign path's common case).
 */
export function apiKeyHook(ctx: ApiKeyDeps, options: KeyHookOptions = {}) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const key = keyOf(request, options);
    if (key === '') {
      done(new ProblemError('missing-credential', missingKeyDetail(options)));
      return;
    }
    const cached = options.authoritative ? undefined : ctx.apiKeys.cached(key);
    if (cached !== undefined) {
      done(admit(request, cached, options));
      return;
    }
    const found = options.authoritative ? ctx.apiKeys.lookup(key) : ctx.apiKeys.resolve(key);
    found.then((value) => done(admit(request, value, options)), done);
  };
}

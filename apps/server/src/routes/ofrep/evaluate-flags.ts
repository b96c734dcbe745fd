import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import {
  evaluateExperiment,
  flagKeysOf,
  flagResult,
  type OfrepSuccess,
} from '../../domain/ofrep/evaluate.ts';
import type { OrgState } from '../../domain/org-state-cache.ts';
import { keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { contextOf, EvaluationFailure, EvaluationRequest, EvaluationSuccess } from './wire.ts';

type Deps = Pick<Context, 'assignTallies' | 'orgState' | 'serverExposures'>;

/**
 * Every flag of the org for one user: each experiment of the config (drafts DISABLED) under its
 * name, its `:$variant` and each variable any of its variants declares. Each experiment the
 * user is assigned to records its exposure, as a single evaluation would: a static-context
 * provider evaluates every flag from this one answer and sends nothing later.
 */
function evaluateAll(
  ctx: Deps,
  state: OrgState,
  userId: string,
  attributes: Record<string, unknown>,
) {
  const flags: OfrepSuccess[] = [];
  for (const listed of state.body.experiments) {
    const evaluated = evaluateExperiment(ctx.assignTallies, state, listed.id, userId, attributes);
    if (evaluated === undefined) continue;
    const exposure = evaluated.exposure;
    if (exposure !== null)
      ctx.serverExposures.record(state.orgId, exposure.experimentId, userId, exposure.variant);
    for (const [key, selector] of flagKeysOf(evaluated.experiment))
      flags.push(flagResult(key, selector, evaluated));
  }
  return { flags, metadata: { configVersion: state.configVersion } };
}

/** Whether If-None-Match names the tag (or is `*`); a weak tag compares as its strong one. */
function matches(sent: string | undefined, etag: string): boolean {
  if (sent === undefined) return false;
  return sent.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * The ETag is the answer's own digest: it changes exactly when the answer would (the config
 * version is in it, and so is every evaluation of this user's context).
 */
function answer(ctx: Deps, state: OrgState, request: FastifyRequest, reply: FastifyReply): void {
  const read = contextOf(request);
  if ('errorCode' in read) {
    reply.code(400).send(read);
    return;
  }
  const body = evaluateAll(ctx, state, read.userId, read.attributes);
  const digest = createHash('sha256').update(JSON.stringify(body)).digest('base64url');
  const etag = `"${digest.slice(0, 27)}"`;
  reply.header('etag', etag).header('cache-control', 'no-cache');
  if (matches(request.headers['if-none-match'], etag)) reply.code(304).send(null);
  else reply.send(body);
}

export function register(app: App, ctx: Deps, limit: preHandlerHookHandler): void {
  app.post(
    '/ofrep/v1/evaluate/flags',
    {
      config: { rateLimit: false },
      preHandler: limit,
      attachValidation: true,
      schema: {
        tags: ['ofrep'],
        summary:
          'OFREP: evaluate every flag for one user; 304 when If-None-Match carries the answer’s ETag',
        security: [{ apiKey: [] }, { bearerKey: [] }],
        body: EvaluationRequest,
        response: {
          200: Type.Object({
            flags: Type.Array(EvaluationSuccess),
            metadata: Type.Object({ configVersion: Type.Integer() }),
          }),
          304: Type.Null({ description: 'Unchanged since the ETag in If-None-Match' }),
          400: Type.Omit(EvaluationFailure, ['key']),
          ...problemResponses(401, 413, 415, 429, 503),
        },
      },
    },
    (request, reply) => {
      const orgId = keyCallerOf(request).orgId;
      const state = ctx.orgState.fresh(orgId);
      if (state !== undefined) return answer(ctx, state, request, reply);
      return ctx.orgState.get(orgId).then((s) => answer(ctx, s, request, reply));
    },
  );
}

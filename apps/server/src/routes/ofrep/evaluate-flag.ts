import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Context } from '../../context.ts';
import {
  evaluateExperiment,
  flagNotFound,
  flagResult,
  splitFlagKey,
} from '../../domain/ofrep/evaluate.ts';
import type { OrgState } from '../../domain/org-state-cache.ts';
import { keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import {
  contextOf,
  EvaluationFailure,
  EvaluationRequest,
  EvaluationSuccess,
  FlagNotFound,
} from './wire.ts';

const Params = Type.Object({
  key: Type.String({
    minLength: 1,
    description:
      'An experiment’s name or id (its variables object), `EXPERIMENT:$variant` (its variant’s key) or `EXPERIMENT:VARIABLE` (one variable)',
  }),
});

type Deps = Pick<Context, 'assignTallies' | 'orgState' | 'serverExposures'>;
/** Evaluates the flag; records the exposure of an assigned user of a running experiment. */
function answer(ctx: Deps, state: OrgState, request: FastifyRequest, reply: FastifyReply): void {
  const key = (request.params as Static<typeof Params>).key;
  const read = contextOf(request);
  if ('errorCode' in read) {
    reply.code(400).send({ key, ...read });
    return;
  }
  const { experiment, selector } = splitFlagKey(key);
  const evaluated = evaluateExperiment(
    ctx.assignTallies,
    state,
    experiment,
    read.userId,
    read.attributes,
  );
  if (evaluated === undefined) {
    reply.code(404).send(flagNotFound(key));
    return;
  }
  const exposure = evaluated.exposure;
  if (exposure !== null)
    ctx.serverExposures.record(state.orgId, exposure.experimentId, read.userId, exposure.variant);
  reply.send(flagResult(key, selector, evaluated));
}

/** `limit`: the ingest plane's per-key rate limit, counted as `POST /v1/assign` counts it. */
export function register(app: App, ctx: Deps, limit: preHandlerHookHandler): void {
  app.post(
    '/ofrep/v1/evaluate/flags/:key',
    {
      config: { rateLimit: false },
      preHandler: limit,
      // A context OFREP refuses is answered in OFREP's shape, by the handler.
      attachValidation: true,
      schema: {
        tags: ['ofrep'],
        summary: 'OFREP: evaluate one flag for one user (an experiment, its variant or a variable)',
        security: [{ apiKey: [] }, { bearerKey: [] }],
        params: Params,
        body: EvaluationRequest,
        response: {
          200: EvaluationSuccess,
          400: EvaluationFailure,
          404: FlagNotFound,
          ...problemResponses(401, 413, 414, 415, 429, 503),
        },
      },
    },
    // From the in-memory org state, as `POST /v1/assign`: no database round trip on this path.
    (request, reply) => {
      const orgId = keyCallerOf(request).orgId;
      const state = ctx.orgState.fresh(orgId);
      if (state !== undefined) return answer(ctx, state, request, reply);
      return ctx.orgState.get(orgId).then((s) => answer(ctx, s, request, reply));
    },
  );
}

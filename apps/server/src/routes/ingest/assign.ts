import { EVENT_TEXT_LIMITS } from '@arbiter/contract';
import type { preHandlerHookHandler } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Context } from '../../context.ts';
import { assignUser } from '../../domain/experiments/assign.ts';
import type { OrgState } from '../../domain/org-state-cache.ts';
import type { AssignTallies } from '../../domain/targeting/assign-tallies.ts';
import { keyCallerOf } from '../../http/api-key-auth.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { FreeFormObject } from '../../schemas/free-form-json.ts';
import { Text } from '../../schemas/text.ts';

const AssignResponse = Type.Object({
  variant: Type.Union([Type.String(), Type.Null()], {
    description: 'null: use the control behaviour',
  }),
  config_version: Type.Integer(),
  reason: Type.Optional(
    Type.Enum(
      [
        'draft',
        'held_out',
        'not_in_layer',
        'not_targeted',
        'not_covered',
        'not_enrolled',
        'unknown_experiment',
      ],
      {
        description:
          'Why variant is null, in the order decided (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting): the experiment is a draft (nothing is evaluated), a holdout of the experiment holds the user out, the user’s layer bucket is owned by another experiment of the layer (or none), the attributes do not match the targeting, the user is outside the experiment’s coverage, the user’s bucket is in no range; or no experiment has this id or name (an archived one included)',
      },
    ),
  ),
});

type Answer = Static<typeof AssignResponse>;

const AssignBody = Type.Object(
  {
    experiment_id: Text({
      ...EVENT_TEXT_LIMITS.experiment_id,
      description: 'Experiment id or unique name',
    }),
    user_id: Text({
      ...EVENT_TEXT_LIMITS.user_id,
      description: 'Refused (400) when an event could not carry it: no NUL or unpaired surrogate',
    }),
    attributes: Type.Optional(
      FreeFormObject(
        'The user’s attributes the experiment’s targeting reads (absent: none); not stored',
      ),
    ),
  },
  { additionalProperties: false },
);

function answer(
  tallies: AssignTallies,
  state: OrgState,
  request: Static<typeof AssignBody>,
): Answer {
  const { experiment_id: experimentId, user_id: userId, attributes = {} } = request;
  const { variant, reason } = assignUser(tallies, state, experimentId, userId, attributes);
  return reason === undefined
    ? { variant, config_version: state.configVersion }
    : { variant: null, config_version: state.configVersion, reason };
}

/** `limit`: the plane's per-key rate limit, run after validation as the plugin's would be. */
export function register(
  app: App,
  ctx: Pick<Context, 'assignTallies' | 'orgState'>,
  limit: preHandlerHookHandler,
): void {
  app.post(
    '/v1/assign',
    {
      // Counted by `limit` against the same per-key budget as the plane's other routes; stores
      // nothing, so it is served while the embedded database's disk is nearly full.
      config: { rateLimit: false, readOnly: true },
      preHandler: limit,
      schema: {
        tags: ['ingest'],
        summary: 'Server-side assignment for callers without a client library (free of charge)',
        security: [{ apiKey: [] }],
        body: AssignBody,
        response: { 200: AssignResponse, ...problemResponses(400, 401, 429) },
      },
    },
    // From the in-memory org state: no database round trip on this path, and no promise while
    // the state is fresh (a synchronous handler's answer is sent as it returns).
    (request): Answer | Promise<Answer> => {
      const orgId = keyCallerOf(request).orgId;
      const state = ctx.orgState.fresh(orgId);
      if (state !== undefined) return answer(ctx.assignTallies, state, request.body);
      return ctx.orgState.get(orgId).then((s) => answer(ctx.assignTallies, s, request.body));
    },
  );
}

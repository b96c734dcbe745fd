import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import {
  EVALUATIONS_PAGE_DEFAULT,
  EVALUATIONS_PAGE_MAX,
  listEvaluations,
} from '../../domain/rollouts/view.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { EvaluationSchema, RampParams, TAGS } from './params.ts';

const EvaluationsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: EVALUATIONS_PAGE_MAX,
        default: EVALUATIONS_PAGE_DEFAULT,
      }),
    ),
    starting_after: Type.Optional(
      Type.String({ format: 'uuid', description: 'The last evaluation id of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments/:id/rollout/evaluations',
    {
      schema: {
        tags: TAGS,
        summary: 'The guard’s evaluations of the ramp, newest first, a page at a time',
        description: `Each evaluation: when, the step and coverage, every guardrail's always-valid interval and p, the SRM p, and what the guard did. At most \`limit\` (default ${EVALUATIONS_PAGE_DEFAULT}, at most ${EVALUATIONS_PAGE_MAX}); \`starting_after=<the last id of a page>\` gives the next, and \`Arbiter-Has-More\` says whether there is one.`,
        params: RampParams,
        querystring: EvaluationsQuery,
        response: { 200: Type.Array(EvaluationSchema), ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { limit = EVALUATIONS_PAGE_DEFAULT, starting_after } = request.query;
      const page = await listEvaluations(ctx.db, callerOf(request).orgId, request.params.id, {
        limit,
        startingAfter: starting_after,
      });
      reply.header('arbiter-has-more', String(page.hasMore));
      return page.evaluations;
    },
  );
}

import type { Context } from '../../context.ts';
import { readRamp } from '../../domain/rollouts/view.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { RampParams, RampSchema, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments/:id/rollout',
    {
      schema: {
        tags: TAGS,
        summary: 'The experiment’s ramp: its steps, where it is, and the guard’s evaluations',
        params: RampParams,
        response: { 200: RampSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => readRamp(ctx.db, callerOf(request).orgId, request.params.id),
  );
}

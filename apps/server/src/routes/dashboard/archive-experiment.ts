import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { transition } from '../../domain/experiments/lifecycle/transitions.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';
import { ExperimentParams } from './get-experiment.ts';

export function register(app: App, ctx: Context): void {
  app.post(
    '/v1/experiments/:id/archive',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['experiments'],
        summary:
          'Archive a draft or stopped experiment: it leaves the config and the default list; results stay readable (admin or owner)',
        params: ExperimentParams,
        response: { 200: ExperimentSchema, ...problemResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const experiment = await transition(
        ctx.db,
        caller,
        request.params.id,
        'archive',
        ctx.clock.now(),
      );
      ctx.orgState.invalidate(caller.orgId);
      return experiment;
    },
  );
}

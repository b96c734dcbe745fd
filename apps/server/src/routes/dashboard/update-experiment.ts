import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { updateExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';
import { ExperimentChangeSchema } from '../../schemas/experiment-config.ts';
import { ExperimentParams } from './get-experiment.ts';

export function register(
  app: App,
  ctx: Pick<Context, 'clock' | 'config' | 'db' | 'orgState'>,
): void {
  app.put(
    '/v1/experiments/:id',
    {
      schema: {
        tags: ['experiments'],
        summary:
          'Change a draft or running experiment; mints a new version, keeps salt, bucketing and assignments (409 once stopped or archived)',
        params: ExperimentParams,
        body: ExperimentChangeSchema,
        response: { 200: ExperimentSchema, ...problemResponses(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      changeOrgConfig(ctx, request, (caller) =>
        updateExperiment(
          ctx.db,
          caller,
          request.params.id,
          request.body,
          ctx.clock.now(),
          ctx.config,
        ),
      ),
  );
}

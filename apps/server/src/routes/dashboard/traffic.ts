import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import { trafficSeries } from '../../domain/exposure-counts.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { ExperimentParams } from './get-experiment.ts';

export function register(app: App, ctx: Pick<Context, 'db' | 'shards'>): void {
  app.get(
    '/v1/experiments/:id/traffic',
    {
      schema: {
        tags: ['results'],
        summary: 'Exposures per UTC day per variant, oldest first',
        params: ExperimentParams,
        response: {
          200: Type.Object({
            experiment_id: Type.String(),
            days: Type.Array(
              Type.Object({
                day: Type.String({ format: 'date' }),
                exposures: Type.Record(Type.String(), Type.Integer()),
                users: Type.Record(Type.String(), Type.Integer()),
              }),
            ),
          }),
          ...problemResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const experiment = await getExperiment(ctx.db, callerOf(request).orgId, request.params.id);
      return { experiment_id: experiment.id, days: await trafficSeries(ctx.shards, experiment.id) };
    },
  );
}

import { Type } from 'typebox';
import { ResultsSchema } from '../../analysis/results/results-schema.ts';
import { runManualAnalysis } from '../../analysis/run/manual-run.ts';
import type { Context } from '../../context.ts';
import { loadExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { ExperimentParams } from './get-experiment.ts';
import { DimensionParam } from './schemas.ts';

export function register(
  app: App,
  ctx: Pick<Context, 'clock' | 'config' | 'db' | 'eventLog' | 'metrics' | 'shards' | 'worker'>,
): void {
  app.post(
    '/v1/experiments/:id/analyze',
    {
      schema: {
        tags: ['results'],
        summary:
          'Run a preliminary analysis now (SRM, tests, FDR over a window ending now); stored for good under manual-<ISO instant>',
        params: ExperimentParams,
        querystring: Type.Object(
          { dimension: Type.Optional(DimensionParam) },
          { additionalProperties: false },
        ),
        response: { 200: ResultsSchema, ...problemResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const found = await loadExperiment(ctx.db, callerOf(request).orgId, request.params.id);
      return runManualAnalysis(ctx, found, request.query.dimension);
    },
  );
}

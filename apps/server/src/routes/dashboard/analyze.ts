import { analyzeExperiment } from '../../analysis/pipeline.ts';
import { readResults } from '../../analysis/results.ts';
import { ResultsSchema } from '../../analysis/results-schema.ts';
import type { Context } from '../../context.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { ExperimentParams } from './get-experiment.ts';

export function register(app: App, ctx: Context): void {
  app.post(
    '/v1/experiments/:id/analyze',
    {
      schema: {
        tags: ['results'],
        summary:
          'Run a preliminary analysis now (SRM, tests, FDR over a window ending now); stored for good under manual-<ISO instant>',
        params: ExperimentParams,
        response: { 200: ResultsSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const experiment = await getExperiment(ctx.db, callerOf(request).orgId, request.params.id);
      const now = ctx.clock.now();
      const label = `manual-${now.toISOString()}`;
      const record = await analyzeExperiment(ctx, {
        experimentId: experiment.id,
        kind: 'manual',
        label,
        windowEnd: now,
      });
      if (record.status !== 'collecting')
        return { ...(await readResults(ctx.db, experiment.id, label)), status: record.status };
      // Too little data for results: the run is kept, but it has no computed rows to list.
      return {
        experiment_id: experiment.id,
        status: record.status,
        computed_for: label,
        computed_at: now.toISOString(),
        preliminary: true,
        available_days: [],
        window: { start: record.windowStart.toISOString(), end: record.windowEnd.toISOString() },
        srm: { p_value: null, halted: false },
        arms: record.arms,
        results: {},
      };
    },
  );
}

import { Type } from 'typebox';
import { readResults } from '../../analysis/results/results.ts';
import { ResultsSchema } from '../../analysis/results/results-schema.ts';
import type { Context } from '../../context.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import { targetingShare } from '../../domain/targeting/tallies.ts';
import type { App } from '../../http/app-types.ts';
import { resultsOrProblem } from '../../http/collecting-problem.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { RunLabelParam } from '../../schemas/run-label.ts';
import { ExperimentParams } from './get-experiment.ts';
import { DimensionParam } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db' | 'shards'>): void {
  app.get(
    '/v1/experiments/:id/results',
    {
      schema: {
        tags: ['results'],
        summary: 'Computed results; 404 while collecting. Default: the most recently computed run',
        params: ExperimentParams,
        querystring: Type.Object(
          {
            day: Type.Optional(RunLabelParam('A day YYYY-MM-DD or a label manual-<ISO instant>')),
            dimension: Type.Optional(DimensionParam),
          },
          { additionalProperties: false },
        ),
        response: { 200: ResultsSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { orgId } = callerOf(request);
      const experiment = await getExperiment(ctx.db, orgId, request.params.id);
      const outcome = await readResults(
        ctx,
        experiment,
        request.query.day,
        { orgId, minEventsPerArm: ctx.config.minEventsPerArm, now: ctx.clock.now() },
        request.query.dimension,
      );
      // Only an experiment with targeting has users it excluded: the others carry no field.
      if (outcome.kind === 'run' && experiment.targeting !== undefined)
        outcome.results.targeting = await targetingShare(
          ctx.db,
          orgId,
          experiment.id,
          outcome.results.window,
        );
      return resultsOrProblem(outcome);
    },
  );
}

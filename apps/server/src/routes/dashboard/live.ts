import { Type } from 'typebox';
import { liveDistributions } from '../../analysis/compute/live-distributions.ts';
import type { Context } from '../../context.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import { liveCounts } from '../../domain/exposure-counts.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { DistributionSchema } from '../../schemas/analysis-run.ts';
import { ExperimentParams } from './get-experiment.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'config' | 'db' | 'shards'>): void {
  app.get(
    '/v1/experiments/:id/live',
    {
      schema: {
        tags: ['results'],
        summary:
          'Uncorrected in-flight exposure counts per variant. No p-values: not a basis for decisions',
        params: ExperimentParams,
        response: {
          200: Type.Object({
            experiment_id: Type.String(),
            note: Type.String(),
            min_events_per_arm: Type.Integer({
              description:
                'Evaluated events every arm needs before results appear (the collecting threshold)',
            }),
            arms: Type.Record(
              Type.String(),
              Type.Object({ exposures: Type.Integer(), users: Type.Integer() }),
            ),
            distributions: Type.Record(Type.String(), DistributionSchema, {
              description: 'Per metric, the per-arm histogram of users’ values so far',
            }),
          }),
          ...problemResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const { orgId } = callerOf(request);
      const experiment = await getExperiment(ctx.db, orgId, request.params.id);
      return {
        experiment_id: experiment.id,
        note: 'Live counts are uncorrected: no SRM gate, no significance, no FDR. Wait for the results.',
        min_events_per_arm: ctx.config.minEventsPerArm,
        arms: await liveCounts(ctx.shards, experiment.id),
        distributions: await liveDistributions(ctx, orgId, experiment),
      };
    },
  );
}

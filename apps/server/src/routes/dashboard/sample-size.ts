import { Type } from 'typebox';
import { sizeForMetric } from '../../analysis/compute/collecting-estimates.ts';
import type { Context } from '../../context.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { MetricDefinitionSchema } from '../../schemas/experiment-config.ts';
import { ExperimentParams } from './get-experiment.ts';

const SampleSizeQuery = Type.Object(
  {
    metric: Type.String({
      ...MetricDefinitionSchema.properties.name,
      description: 'The metric, by its name in the config',
    }),
    mde: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 10,
        description:
          'The relative minimum detectable effect to size for (0.05 = 5 % of the control mean); absent: the metric’s own, else 0.05',
      }),
    ),
  },
  { additionalProperties: false },
);

const Count = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

const SampleSizeSchema = Type.Object({
  metric: Type.String(),
  estimates: Type.Array(
    Type.Object({
      treatment: Type.String(),
      mde: Type.Number(),
      n_per_arm: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
      users_needed_per_arm: Count,
      days_to_decision: Count,
    }),
    { description: 'One per treatment against the control; empty while an arm has no users' },
  ),
});

export function register(app: App, ctx: Pick<Context, 'clock' | 'db' | 'shards'>): void {
  app.get(
    '/v1/experiments/:id/sample-size',
    {
      schema: {
        tags: ['results'],
        summary:
          "Users per arm to detect the MDE on one metric (two-sided α = 0.05, 80 % power, the arms' variance so far) and the days until the arms reach it at the last 7 days' arrivals",
        params: ExperimentParams,
        querystring: SampleSizeQuery,
        response: { 200: SampleSizeSchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { orgId } = callerOf(request);
      const experiment = await getExperiment(ctx.db, orgId, request.params.id);
      const { metric, mde } = request.query;
      const estimates = await sizeForMetric(
        ctx.shards,
        orgId,
        experiment,
        metric,
        mde,
        ctx.clock.now(),
      );
      return { metric, estimates: estimates.map(({ metric: _, ...e }) => e) };
    },
  );
}

import { and, eq } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { metricMethodOverrides } from '../../db/schema.ts';
import { recordAudit } from '../../domain/audit.ts';
import { BINARY_KINDS, METHODS } from '../../domain/experiments/config-schema.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { ProblemError } from '../../http/problems.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

export function register(app: App, ctx: Context): void {
  app.put(
    '/v1/experiments/:id/metrics/:metric/method',
    {
      schema: {
        tags: ['results'],
        summary:
          "Override a metric's test (null returns to method_default); audit-logged, used from the next run on",
        params: Type.Object({
          id: Text({ maxLength: 200 }),
          metric: Text({ maxLength: 128 }),
        }),
        body: Type.Object(
          { method: Type.Union([Type.Enum(METHODS), Type.Null()]) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            metric: Type.String(),
            method: Type.String(),
            overridden: Type.Boolean(),
          }),
          ...problemResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const experiment = await getExperiment(ctx.db, caller.orgId, request.params.id);
      const metric = experiment.metrics.find((m) => m.name === request.params.metric);
      if (!metric)
        throw new ProblemError(
          'experiment-not-found',
          `Experiment ${experiment.id} has no metric ${request.params.metric}`,
        );
      const method = request.body.method;
      if (method === 'two_proportion_z' && !BINARY_KINDS.includes(metric.kind)) {
        throw new ProblemError(
          'validation-error',
          `two_proportion_z needs a binary metric, not ${metric.kind}`,
          {
            errors: [
              {
                pointer: '#/method',
                detail: `two_proportion_z needs a binary kind (${BINARY_KINDS.join(', ')})`,
              },
            ],
          },
        );
      }
      const where = and(
        eq(metricMethodOverrides.experimentId, experiment.id),
        eq(metricMethodOverrides.metric, metric.name),
      );
      await ctx.db.transaction(async (tx) => {
        if (method === null) await tx.delete(metricMethodOverrides).where(where);
        else
          await tx
            .insert(metricMethodOverrides)
            .values({
              experimentId: experiment.id,
              metric: metric.name,
              method,
              setBy: caller.userId,
            })
            .onConflictDoUpdate({
              target: [metricMethodOverrides.experimentId, metricMethodOverrides.metric],
              set: { method, setBy: caller.userId, setAt: new Date() },
            });
        await recordAudit(tx, {
          orgId: caller.orgId,
          actorUserId: caller.userId,
          action: 'experiment.method_overridden',
          targetType: 'experiment',
          targetId: experiment.id,
          details: { metric: metric.name, method, method_default: metric.method_default },
        });
      });
      return {
        metric: metric.name,
        method: method ?? metric.method_default,
        overridden: method !== null,
      };
    },
  );
}

import { METHODS } from '@arbiter/contract';
import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { overrideMetricMethod } from '../../domain/experiments/metric-method.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

export function register(app: App, ctx: Pick<Context, 'clock' | 'db'>): void {
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
    async (request) =>
      overrideMetricMethod(
        ctx.db,
        callerOf(request),
        request.params.id,
        request.params.metric,
        request.body.method,
        ctx.clock.now(),
      ),
  );
}

import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { listVersions } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { ExperimentParams } from './get-experiment.ts';

export function register(app: App, ctx: Context): void {
  app.get(
    '/v1/experiments/:id/versions',
    {
      schema: {
        tags: ['experiments'],
        summary: 'Every retained version of an experiment, newest first',
        params: ExperimentParams,
        response: { 200: Type.Array(ExperimentSchema), ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => listVersions(ctx.db, callerOf(request).orgId, request.params.id),
  );
}

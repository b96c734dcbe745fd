import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { listExperiments } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

export function register(app: App, ctx: Context): void {
  app.get(
    '/v1/experiments',
    {
      schema: {
        tags: ['experiments'],
        summary: "List the org's experiments, latest version each",
        response: { 200: Type.Array(ExperimentSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listExperiments(ctx.db, callerOf(request).orgId),
  );
}

import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

export const ExperimentParams = Type.Object({ id: Text({ maxLength: 200 }) });

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/experiments/:id',
    {
      schema: {
        tags: ['experiments'],
        summary: 'Read an experiment at its latest version',
        params: ExperimentParams,
        response: { 200: ExperimentSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => getExperiment(ctx.db, callerOf(request).orgId, request.params.id),
  );
}

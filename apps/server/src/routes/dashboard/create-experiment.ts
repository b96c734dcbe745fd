import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { createExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig, created } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';
import { ExperimentConfigSchema } from '../../schemas/experiment-config.ts';

/** The config, and the status to start in: running unless the body says draft. */
const CreateExperimentBody = Type.Object(
  {
    ...ExperimentConfigSchema.properties,
    status: Type.Optional(
      Type.Enum(['draft', 'running'], {
        description:
          'draft: created serving no one until POST /v1/experiments/{id}/start; absent or running: live at once',
      }),
    ),
  },
  { additionalProperties: false },
);

export function register(
  app: App,
  ctx: Pick<Context, 'clock' | 'config' | 'db' | 'orgState'>,
): void {
  app.post(
    '/v1/experiments',
    {
      schema: {
        tags: ['experiments'],
        summary: 'Create an experiment (version 1)',
        body: CreateExperimentBody,
        response: { 201: ExperimentSchema, ...problemResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) =>
      created(
        reply,
        '/v1/experiments',
        await changeOrgConfig(ctx, request, (caller) =>
          createExperiment(ctx.db, caller, request.body, ctx.clock.now(), ctx.config),
        ),
      ),
  );
}

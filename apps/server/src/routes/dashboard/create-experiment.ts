import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { createExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgCreate } from '../../http/org-routes.ts';
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
  registerOrgCreate(app, ctx, {
    url: '/v1/experiments',
    tags: ['experiments'],
    summary: 'Create an experiment (version 1)',
    body: CreateExperimentBody,
    item: ExperimentSchema,
    problems: [400, 401, 403, 413, 415],
    create: (caller, body) => createExperiment(ctx.db, caller, body, ctx.clock.now(), ctx.config),
  });
}

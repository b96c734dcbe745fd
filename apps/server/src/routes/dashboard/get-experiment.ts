import type { Context } from '../../context.ts';
import { ExperimentSchema } from '../../domain/experiments/experiment-schema.ts';
import { getExperiment } from '../../domain/experiments/service.ts';
import type { App } from '../../http/app-types.ts';
import { IdOrNameParams, registerOrgGet } from '../../http/org-routes.ts';

export const ExperimentParams = IdOrNameParams;

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgGet(app, ctx.db, {
    url: '/v1/experiments/:id',
    tags: ['experiments'],
    summary: 'Read an experiment at its latest version',
    params: ExperimentParams,
    item: ExperimentSchema,
    get: getExperiment,
  });
}

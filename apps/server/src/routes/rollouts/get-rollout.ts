import type { Context } from '../../context.ts';
import { readRamp } from '../../domain/rollouts/view.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgGet } from '../../http/org-routes.ts';
import { RampParams, RampSchema, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgGet(app, ctx.db, {
    url: '/v1/experiments/:id/rollout',
    tags: TAGS,
    summary: 'The experiment’s ramp: its steps, where it is, and the guard’s evaluations',
    params: RampParams,
    item: RampSchema,
    get: readRamp,
  });
}

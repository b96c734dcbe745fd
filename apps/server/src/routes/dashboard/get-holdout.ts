import type { Context } from '../../context.ts';
import { HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { getHoldout } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { IdOrNameParams, registerOrgGet } from '../../http/org-routes.ts';

export const HoldoutParams = IdOrNameParams;

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgGet(app, ctx.db, {
    url: '/v1/holdouts/:id',
    tags: ['holdouts'],
    summary: 'Read a holdout by id or name',
    params: HoldoutParams,
    item: HoldoutSchema,
    get: getHoldout,
  });
}

import type { Context } from '../../context.ts';
import { HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { listHoldouts } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgList } from '../../http/org-routes.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgList(app, ctx.db, {
    url: '/v1/holdouts',
    tags: ['holdouts'],
    summary: 'List the org’s holdouts, in the order they were created',
    item: HoldoutSchema,
    list: listHoldouts,
  });
}

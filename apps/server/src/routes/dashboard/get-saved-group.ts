import type { Context } from '../../context.ts';
import { SavedGroupSchema } from '../../domain/saved-groups/saved-group-schema.ts';
import { getSavedGroup } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { IdOrNameParams, registerOrgGet } from '../../http/org-routes.ts';

export const SavedGroupParams = IdOrNameParams;

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgGet(app, ctx.db, {
    url: '/v1/saved-groups/:id',
    tags: ['saved groups'],
    summary: 'Read a saved group by id or key',
    params: SavedGroupParams,
    item: SavedGroupSchema,
    get: getSavedGroup,
  });
}

import type { Context } from '../../context.ts';
import { SavedGroupSchema } from '../../domain/saved-groups/saved-group-schema.ts';
import { listSavedGroups } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgList } from '../../http/org-routes.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgList(app, ctx.db, {
    url: '/v1/saved-groups',
    tags: ['saved groups'],
    summary: 'List the org’s saved groups, by key',
    item: SavedGroupSchema,
    list: listSavedGroups,
  });
}

import type { Context } from '../../context.ts';
import {
  SavedGroupInputSchema,
  SavedGroupSchema,
} from '../../domain/saved-groups/saved-group-schema.ts';
import { createSavedGroup } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgCreate } from '../../http/org-routes.ts';

export function register(app: App, ctx: Pick<Context, 'config' | 'db' | 'orgState'>): void {
  registerOrgCreate(app, ctx, {
    url: '/v1/saved-groups',
    tags: ['saved groups'],
    summary: 'Create a saved group: a list of values targeting tests with $inGroup by key',
    body: SavedGroupInputSchema,
    item: SavedGroupSchema,
    problems: [400, 401, 403, 413, 415],
    create: (caller, body) => createSavedGroup(ctx.db, caller, body, ctx.config),
  });
}

import type { Context } from '../../context.ts';
import {
  SavedGroupChangeSchema,
  SavedGroupSchema,
} from '../../domain/saved-groups/saved-group-schema.ts';
import { updateSavedGroup } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';
import { SavedGroupParams } from './get-saved-group.ts';

export function register(app: App, ctx: Pick<Context, 'config' | 'db' | 'orgState'>): void {
  app.put(
    '/v1/saved-groups/:id',
    {
      schema: {
        tags: ['saved groups'],
        summary: 'Change a saved group’s values or description; the key stays',
        params: SavedGroupParams,
        body: SavedGroupChangeSchema,
        response: { 200: SavedGroupSchema, ...problemResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      changeOrgConfig(ctx, request, (caller) =>
        updateSavedGroup(ctx.db, caller, request.params.id, request.body, ctx.config),
      ),
  );
}

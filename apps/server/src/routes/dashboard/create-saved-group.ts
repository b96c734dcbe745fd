import type { Context } from '../../context.ts';
import {
  SavedGroupInputSchema,
  SavedGroupSchema,
} from '../../domain/saved-groups/saved-group-schema.ts';
import { createSavedGroup } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig, created } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';

export function register(app: App, ctx: Pick<Context, 'config' | 'db' | 'orgState'>): void {
  app.post(
    '/v1/saved-groups',
    {
      schema: {
        tags: ['saved groups'],
        summary: 'Create a saved group: a list of values targeting tests with $inGroup by key',
        body: SavedGroupInputSchema,
        response: { 201: SavedGroupSchema, ...problemResponses(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) =>
      created(
        reply,
        '/v1/saved-groups',
        await changeOrgConfig(ctx, request, (caller) =>
          createSavedGroup(ctx.db, caller, request.body, ctx.config),
        ),
      ),
  );
}

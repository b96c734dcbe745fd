import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { SavedGroupSchema } from '../../domain/saved-groups/saved-group-schema.ts';
import { listSavedGroups } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/saved-groups',
    {
      schema: {
        tags: ['saved groups'],
        summary: 'List the org’s saved groups, by key',
        response: { 200: Type.Array(SavedGroupSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listSavedGroups(ctx.db, callerOf(request).orgId),
  );
}

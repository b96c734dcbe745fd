import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { SavedGroupSchema } from '../../domain/saved-groups/saved-group-schema.ts';
import { getSavedGroup } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

export const SavedGroupParams = Type.Object({ id: Text({ maxLength: 200 }) });

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/saved-groups/:id',
    {
      schema: {
        tags: ['saved groups'],
        summary: 'Read a saved group by id or key',
        params: SavedGroupParams,
        response: { 200: SavedGroupSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => getSavedGroup(ctx.db, callerOf(request).orgId, request.params.id),
  );
}

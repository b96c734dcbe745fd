import type { Context } from '../../context.ts';
import {
  SavedGroupInputSchema,
  SavedGroupSchema,
} from '../../domain/saved-groups/saved-group-schema.ts';
import { createSavedGroup } from '../../domain/saved-groups/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

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
    async (request, reply) => {
      const caller = callerOf(request);
      const group = await createSavedGroup(ctx.db, caller, request.body, ctx.config);
      ctx.orgState.invalidate(caller.orgId);
      reply.status(201).header('location', `/v1/saved-groups/${group.id}`);
      return group;
    },
  );
}

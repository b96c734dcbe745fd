import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { listHoldouts } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/holdouts',
    {
      schema: {
        tags: ['holdouts'],
        summary: 'List the org’s holdouts, in the order they were created',
        response: { 200: Type.Array(HoldoutSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listHoldouts(ctx.db, callerOf(request).orgId),
  );
}

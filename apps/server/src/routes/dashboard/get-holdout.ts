import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { HoldoutSchema } from '../../domain/holdouts/holdout-schema.ts';
import { getHoldout } from '../../domain/holdouts/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

export const HoldoutParams = Type.Object({ id: Text({ maxLength: 200 }) });

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/holdouts/:id',
    {
      schema: {
        tags: ['holdouts'],
        summary: 'Read a holdout by id or name',
        params: HoldoutParams,
        response: { 200: HoldoutSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => getHoldout(ctx.db, callerOf(request).orgId, request.params.id),
  );
}

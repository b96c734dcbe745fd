import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { listKeys } from '../../domain/keys.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Scope } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/keys',
    {
      schema: {
        tags: ['keys'],
        summary: 'Active keys of the org, never the raw key',
        response: {
          200: Type.Array(
            Type.Object({
              scope: Scope,
              created_at: Type.String({ format: 'date-time' }),
              revealable: Type.Boolean(),
              hint: Type.String({ description: 'Prefix and last four characters' }),
            }),
          ),
          ...problemResponses(401, 403),
        },
      },
    },
    async (request) => listKeys(ctx.db, callerOf(request).orgId),
  );
}

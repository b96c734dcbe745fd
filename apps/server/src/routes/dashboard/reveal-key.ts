import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { revealKey } from '../../domain/keys.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';
import { ApiKeySchema, Scope } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db' | 'secretBox'>): void {
  app.get(
    '/v1/keys/:scope/reveal',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['keys'],
        summary: 'The raw active key of a scope (admin only, audit-logged)',
        params: Type.Object({ scope: Scope }),
        response: { 200: ApiKeySchema, ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request) => revealKey(ctx.db, ctx.secretBox, callerOf(request), request.params.scope),
  );
}

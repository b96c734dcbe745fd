import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { rotateKey } from '../../domain/keys.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';
import { ApiKeySchema, Scope } from './schemas.ts';

export function register(
  app: App,
  ctx: Pick<Context, 'apiKeys' | 'clock' | 'db' | 'secretBox'>,
): void {
  app.post(
    '/v1/keys',
    {
      preHandler: requireRole('admin'),
      schema: {
        tags: ['keys'],
        summary:
          'Create the active key of a scope; the previous key of that scope stops working at once',
        body: Type.Object({ scope: Scope }, { additionalProperties: false }),
        response: { 201: ApiKeySchema, ...problemResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const key = await rotateKey(
        ctx.db,
        ctx.secretBox,
        callerOf(request),
        request.body.scope,
        ctx.clock.now(),
      );
      // The previous key must stop working at once, also for cached lookups.
      ctx.apiKeys.clear();
      reply.status(201);
      return key;
    },
  );
}

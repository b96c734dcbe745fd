import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { KEY_SCOPES, listKeys, revealKey, rotateKey } from '../../domain/keys.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf, requireRole } from '../../http/session-auth.ts';

const Scope = Type.Enum(KEY_SCOPES);
const ApiKeySchema = Type.Object({
  scope: Scope,
  key: Type.String({ description: 'The raw key; svc_pk_ (publishable) or svc_sk_ (secret)' }),
  created_at: Type.String({ format: 'date-time' }),
});

export function registerList(app: App, ctx: Context): void {
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

export function registerRotate(app: App, ctx: Context): void {
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
      const key = await rotateKey(ctx.db, ctx.secretBox, callerOf(request), request.body.scope);
      // The previous key must stop working at once, also for cached lookups.
      ctx.apiKeys.clear();
      reply.status(201);
      return key;
    },
  );
}

export function registerReveal(app: App, ctx: Context): void {
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

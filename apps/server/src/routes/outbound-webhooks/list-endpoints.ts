import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { EndpointSchema } from '../../domain/outbound-webhooks/endpoint-schema.ts';
import { listEndpoints } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/webhook-endpoints',
    {
      schema: {
        tags: TAGS,
        summary: "The org's webhook endpoints, oldest first (never their secrets)",
        response: { 200: Type.Array(EndpointSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listEndpoints(ctx.db, callerOf(request).orgId),
  );
}

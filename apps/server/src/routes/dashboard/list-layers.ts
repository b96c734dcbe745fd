import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { LayerSchema } from '../../domain/layers/layer-schema.ts';
import { listLayers } from '../../domain/layers/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/layers',
    {
      schema: {
        tags: ['layers'],
        summary: 'List the org’s layers, by name, each with its bucket map',
        response: { 200: Type.Array(LayerSchema), ...problemResponses(401, 403) },
      },
    },
    async (request) => listLayers(ctx.db, callerOf(request).orgId),
  );
}

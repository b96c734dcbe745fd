import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { LayerSchema } from '../../domain/layers/layer-schema.ts';
import { getLayer } from '../../domain/layers/service.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { Text } from '../../schemas/text.ts';

export const LayerParams = Type.Object({ id: Text({ maxLength: 200 }) });

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/layers/:id',
    {
      schema: {
        tags: ['layers'],
        summary:
          'Read a layer by id or name, with its bucket map: which experiment owns which buckets',
        params: LayerParams,
        response: { 200: LayerSchema, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => getLayer(ctx.db, callerOf(request).orgId, request.params.id),
  );
}

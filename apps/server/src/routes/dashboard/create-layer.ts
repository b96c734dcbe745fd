import type { Context } from '../../context.ts';
import { LayerInputSchema, LayerSchema } from '../../domain/layers/layer-schema.ts';
import { createLayer } from '../../domain/layers/service.ts';
import type { App } from '../../http/app-types.ts';
import { changeOrgConfig, created } from '../../http/org-routes.ts';
import { problemResponses } from '../../http/responses.ts';

export function register(app: App, ctx: Pick<Context, 'db' | 'orgState'>): void {
  app.post(
    '/v1/layers',
    {
      schema: {
        tags: ['layers'],
        summary:
          'Create a layer: experiments in it own disjoint shares of its users (name, salt and bucket_count frozen)',
        body: LayerInputSchema,
        response: { 201: LayerSchema, ...problemResponses(400, 401, 403, 415) },
      },
    },
    async (request, reply) =>
      created(
        reply,
        '/v1/layers',
        await changeOrgConfig(ctx, request, (caller) => createLayer(ctx.db, caller, request.body)),
      ),
  );
}

import type { Context } from '../../context.ts';
import { LayerInputSchema, LayerSchema } from '../../domain/layers/layer-schema.ts';
import { createLayer } from '../../domain/layers/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgCreate } from '../../http/org-routes.ts';

export function register(app: App, ctx: Pick<Context, 'db' | 'orgState'>): void {
  registerOrgCreate(app, ctx, {
    url: '/v1/layers',
    tags: ['layers'],
    summary:
      'Create a layer: experiments in it own disjoint shares of its users (name, salt and bucket_count frozen)',
    body: LayerInputSchema,
    item: LayerSchema,
    problems: [400, 401, 403, 415],
    create: (caller, body) => createLayer(ctx.db, caller, body),
  });
}

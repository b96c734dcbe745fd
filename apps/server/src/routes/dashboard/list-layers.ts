import type { Context } from '../../context.ts';
import { LayerSchema } from '../../domain/layers/layer-schema.ts';
import { listLayers } from '../../domain/layers/service.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgList } from '../../http/org-routes.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgList(app, ctx.db, {
    url: '/v1/layers',
    tags: ['layers'],
    summary: 'List the org’s layers, by name, each with its bucket map',
    item: LayerSchema,
    list: listLayers,
  });
}

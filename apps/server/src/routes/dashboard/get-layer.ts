import type { Context } from '../../context.ts';
import { LayerSchema } from '../../domain/layers/layer-schema.ts';
import { getLayer } from '../../domain/layers/service.ts';
import type { App } from '../../http/app-types.ts';
import { IdOrNameParams, registerOrgGet } from '../../http/org-routes.ts';

export const LayerParams = IdOrNameParams;

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgGet(app, ctx.db, {
    url: '/v1/layers/:id',
    tags: ['layers'],
    summary: 'Read a layer by id or name, with its bucket map: which experiment owns which buckets',
    params: LayerParams,
    item: LayerSchema,
    get: getLayer,
  });
}

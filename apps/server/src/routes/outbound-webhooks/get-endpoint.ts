import type { Context } from '../../context.ts';
import { EndpointSchema } from '../../domain/outbound-webhooks/endpoint-schema.ts';
import { getEndpoint } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgGet } from '../../http/org-routes.ts';
import { EndpointParams, TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgGet(app, ctx.db, {
    url: '/v1/webhook-endpoints/:id',
    tags: TAGS,
    summary: 'One webhook endpoint (never its secret)',
    params: EndpointParams,
    item: EndpointSchema,
    get: getEndpoint,
  });
}

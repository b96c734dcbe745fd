import type { Context } from '../../context.ts';
import { EndpointSchema } from '../../domain/outbound-webhooks/endpoint-schema.ts';
import { listEndpoints } from '../../domain/outbound-webhooks/endpoints.ts';
import type { App } from '../../http/app-types.ts';
import { registerOrgList } from '../../http/org-routes.ts';
import { TAGS } from './params.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  registerOrgList(app, ctx.db, {
    url: '/v1/webhook-endpoints',
    tags: TAGS,
    summary: "The org's webhook endpoints, oldest first (never their secrets)",
    item: EndpointSchema,
    list: listEndpoints,
  });
}

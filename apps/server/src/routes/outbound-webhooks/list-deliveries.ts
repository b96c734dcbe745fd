import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import {
  DELIVERIES_PAGE_DEFAULT,
  DELIVERIES_PAGE_MAX,
  listDeliveries,
} from '../../domain/outbound-webhooks/deliveries.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { DeliverySchema } from './delivery-schema.ts';
import { EndpointParams, TAGS } from './params.ts';

const DeliveriesQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: DELIVERIES_PAGE_MAX, default: DELIVERIES_PAGE_DEFAULT }),
    ),
    starting_after: Type.Optional(
      Type.String({ format: 'uuid', description: 'The last delivery id of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/webhook-endpoints/:id/deliveries',
    {
      schema: {
        tags: TAGS,
        summary: "An endpoint's deliveries, newest first, a page at a time",
        description: `Each event queued for the endpoint, with its state, attempts, the last answer or error, and the event itself. At most \`limit\` (default ${DELIVERIES_PAGE_DEFAULT}, at most ${DELIVERIES_PAGE_MAX}); \`starting_after=<the last id of a page>\` gives the next, and \`Arbiter-Has-More\` says whether there is one.`,
        params: EndpointParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Array(DeliverySchema), ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { status, limit = DELIVERIES_PAGE_DEFAULT, starting_after } = request.query;
      const page = await listDeliveries(ctx.db, callerOf(request).orgId, request.params.id, {
        status,
        limit,
        startingAfter: starting_after,
      });
      reply.header('arbiter-has-more', String(page.hasMore));
      return page.deliveries;
    },
  );
}

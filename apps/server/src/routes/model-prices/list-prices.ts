import type { Context } from '../../context.ts';
import { listPrices } from '../../domain/model-prices/org-prices.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { PriceListSchema, TAGS } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db'>): void {
  app.get(
    '/v1/model-prices',
    {
      schema: {
        tags: TAGS,
        summary: 'The price table that prices model calls: the built-in rows and your org’s own',
        description:
          'Admins and owners. A model call without `cost_usd` is priced at ingest from the row in effect at its timestamp: your org’s row when one matches, else the built-in one.',
        response: { 200: PriceListSchema, ...problemResponses(401, 403) },
      },
    },
    async (request) => listPrices(ctx.db, callerOf(request).orgId),
  );
}

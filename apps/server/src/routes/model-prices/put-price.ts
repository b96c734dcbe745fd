import type { Context } from '../../context.ts';
import { putPrice } from '../../domain/model-prices/org-prices.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { OrgRowSchema, PriceInputSchema, TAGS } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db' | 'clock' | 'modelPrices'>): void {
  app.put(
    '/v1/model-prices',
    {
      schema: {
        tags: TAGS,
        summary: 'Add or replace your org’s price row for a model pattern from a UTC day',
        description:
          'Admins and owners; audited. The row prices calls accepted from now on whose timestamps fall on or after `effective_from`; stored costs never change.',
        body: PriceInputSchema,
        response: { 200: OrgRowSchema, ...problemResponses(400, 401, 403) },
      },
    },
    async (request) =>
      putPrice(ctx.db, ctx.modelPrices, callerOf(request), request.body, ctx.clock.now()),
  );
}

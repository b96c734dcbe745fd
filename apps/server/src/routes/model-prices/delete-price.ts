import { Type } from 'typebox';
import type { Context } from '../../context.ts';
import { deletePrice } from '../../domain/model-prices/org-prices.ts';
import type { App } from '../../http/app-types.ts';
import { problemResponses } from '../../http/responses.ts';
import { callerOf } from '../../http/session-auth.ts';
import { PriceKeyQuery, TAGS } from './schemas.ts';

export function register(app: App, ctx: Pick<Context, 'db' | 'modelPrices'>): void {
  app.delete(
    '/v1/model-prices',
    {
      schema: {
        tags: TAGS,
        summary: 'Remove one of your org’s price rows',
        description:
          'Admins and owners; audited. Calls the row priced keep their cost and its name in `priced_by`.',
        querystring: PriceKeyQuery,
        response: { 204: Type.Null(), ...problemResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { pattern, effective_from } = request.query;
      await deletePrice(ctx.db, ctx.modelPrices, callerOf(request), pattern, effective_from);
      reply.status(204);
    },
  );
}

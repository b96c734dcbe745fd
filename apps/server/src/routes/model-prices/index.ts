import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import { requireRole, type SessionDeps, useSession } from '../../http/session-auth.ts';
import * as deletePrice from './delete-price.ts';
import * as listPrices from './list-prices.ts';
import * as putPrice from './put-price.ts';

/** What the model prices plane's hooks and routes use. */
export type ModelPriceDeps = SessionDeps & Pick<Context, 'db' | 'clock' | 'modelPrices'>;

/**
 * The model prices plane: the org's own rows over the built-in price table, behind a dashboard
 * session of an admin or owner (a price changes what every later call of the org costs).
 */
export const modelPriceRoutes: Plane<ModelPriceDeps> = async (app, { ctx }) => {
  useSession(app, ctx);
  app.addHook('preHandler', requireRole('admin'));
  registerRoutes(app, ctx, [listPrices, putPrice, deletePrice]);
};

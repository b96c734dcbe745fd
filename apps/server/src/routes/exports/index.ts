import type { Context } from '../../context.ts';
import type { ApiKeyDeps } from '../../http/api-key-auth.ts';
import type { Plane } from '../../http/app-types.ts';
import type { SessionDeps } from '../../http/session-auth.ts';
import { requireSessionRole, useSessionOrSecretKey } from '../../http/session-or-key-auth.ts';
import * as exportEvents from './export-events.ts';

/** What the exports plane's hook and route use. */
export type ExportDeps = SessionDeps & ApiKeyDeps & Pick<Context, 'db' | 'shards' | 'modelText'>;

/**
 * The exports plane: an org's raw data taken elsewhere, behind an admin's (or owner's)
 * dashboard session or the org's secret key; a member's session and a publishable key are
 * refused. The org comes from the credential.
 */
export const exportRoutes: Plane<ExportDeps> = async (app, { ctx }) => {
  useSessionOrSecretKey(app, ctx);
  app.addHook('preHandler', requireSessionRole('admin'));
  exportEvents.register(app, ctx);
};

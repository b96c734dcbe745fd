import type { Context } from '../../context.ts';
import type { ApiKeyDeps } from '../../http/api-key-auth.ts';
import type { Plane } from '../../http/app-types.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import type { SessionDeps } from '../../http/session-auth.ts';
import { useSessionOrSecretKey } from '../../http/session-or-key-auth.ts';
import * as completeRun from './complete-run.ts';
import * as createRun from './create-run.ts';
import * as getRun from './get-run.ts';
import * as listItems from './list-items.ts';
import * as listRuns from './list-runs.ts';
import * as uploadResults from './upload-results.ts';

/** What the offline-runs plane's hook and routes use. */
export type OfflineRunDeps = SessionDeps &
  ApiKeyDeps &
  Pick<Context, 'db' | 'dbPool' | 'clock' | 'judge' | 'offlineScoring'>;

/**
 * The offline-runs plane: offline evaluation runs of the caller's org, behind a dashboard
 * session of any role or the org's secret key (a CI job); the org comes from the credential.
 */
export const offlineRunRoutes: Plane<OfflineRunDeps> = async (app, { ctx }) => {
  useSessionOrSecretKey(app, ctx);
  registerRoutes(app, ctx, [createRun, listRuns, getRun, uploadResults, completeRun, listItems]);
};

import type { NightlyDeps } from '../../analysis/run/nightly.ts';
import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { platformOwnerHook } from '../../http/platform-owner-auth.ts';
import { registerRoutes } from '../../http/register-routes.ts';
import * as backup from './backup.ts';
import * as getOrg from './get-org.ts';
import * as health from './health.ts';
import * as inbox from './inbox.ts';
import * as listOrgs from './list-orgs.ts';
import * as overview from './overview.ts';
import * as pipelineRun from './pipeline-run.ts';
import * as planOverride from './plan-override.ts';
import * as seatsResync from './seats-resync.ts';

/** What the admin plane's hook and routes use: the nightly run's parts and the owner's tools. */
export type AdminDeps = NightlyDeps &
  Pick<
    Context,
    | 'controlToken'
    | 'sessions'
    | 'dumpDatabase'
    | 'disk'
    | 'patterns'
    | 'orgState'
    | 'identityDirectory'
  >;

/** Platform-owner routes: not part of the customer API. */
export const adminRoutes: Plane<AdminDeps> = async (app, { ctx }) => {
  app.decorateRequest('platformOwnerEmail', null);
  app.addHook('onRequest', platformOwnerHook(ctx));
  registerRoutes(app, ctx, [
    pipelineRun,
    inbox,
    overview,
    listOrgs,
    getOrg,
    health,
    seatsResync,
    planOverride,
    backup,
  ]);
};

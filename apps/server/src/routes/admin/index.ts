import type { Plane } from '../../http/app-types.ts';
import { platformOwnerHook } from '../../http/platform-owner-auth.ts';
import * as backup from './backup.ts';
import * as getOrg from './get-org.ts';
import * as health from './health.ts';
import * as inbox from './inbox.ts';
import * as listOrgs from './list-orgs.ts';
import * as overview from './overview.ts';
import * as pipelineRun from './pipeline-run.ts';
import * as planOverride from './plan-override.ts';
import * as seatsResync from './seats-resync.ts';

/** Platform-owner routes: not part of the customer API. */
export const adminRoutes: Plane = async (app, { ctx }) => {
  app.decorateRequest('platformOwnerEmail', null);
  app.addHook('onRequest', platformOwnerHook(ctx));
  pipelineRun.register(app, ctx);
  inbox.register(app, ctx);
  overview.register(app, ctx);
  listOrgs.register(app, ctx);
  getOrg.register(app, ctx);
  health.register(app, ctx);
  seatsResync.register(app, ctx);
  planOverride.register(app, ctx);
  backup.register(app, ctx);
};

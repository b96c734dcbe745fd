import type { Plane } from '../../http/app-types.ts';
import { platformOwnerHook } from '../../http/platform-owner-auth.ts';
import * as pipelineRun from './pipeline-run.ts';

/** Platform-owner routes: not part of the customer API. */
export const adminRoutes: Plane = async (app, { ctx }) => {
  app.addHook('onRequest', platformOwnerHook(ctx));
  pipelineRun.register(app, ctx);
};

import type { Plane } from '../../http/app-types.ts';
import { ReadinessProbe } from '../../http/readiness.ts';
import * as healthz from './healthz.ts';
import * as readyz from './readyz.ts';

/** The load balancer's probes: no credential, not under /v1, not in the API's document. */
export const probeRoutes: Plane = async (app, { ctx }) => {
  healthz.register(app);
  readyz.register(app, new ReadinessProbe(ctx));
};

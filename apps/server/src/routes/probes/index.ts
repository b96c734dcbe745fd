import type { Context } from '../../context.ts';
import type { Plane } from '../../http/app-types.ts';
import { type ReadinessDeps, ReadinessProbe } from '../../http/readiness.ts';
import * as healthz from './healthz.ts';
import * as metricsRoute from './metrics.ts';
import * as readyz from './readyz.ts';

/**
 * The load balancer's probes and Prometheus' scrape (when metrics are on, and not on a port of
 * their own): no session or key, not under /v1, not in the API's document.
 */
export const probeRoutes: Plane<ReadinessDeps & Pick<Context, 'metrics'>> = async (
  app,
  { ctx },
) => {
  healthz.register(app);
  readyz.register(app, new ReadinessProbe(ctx));
  if (ctx.config.metrics && ctx.config.metricsPort === null)
    metricsRoute.register(app, ctx.metrics, ctx.config.metricsToken);
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.ts';
import type { Metrics } from '../../http/metrics.ts';
import { ReadinessProbe } from '../../http/readiness.ts';
import * as healthz from './healthz.ts';
import * as metricsRoute from './metrics.ts';
import * as readyz from './readyz.ts';

/**
 * The load balancer's probes and Prometheus' scrape (when metrics are on): no session or key,
 * not under /v1, not in the API's document.
 */
export const probeRoutes: FastifyPluginAsyncTypebox<{
  ctx: Context;
  metrics: Metrics | null;
}> = async (app, { ctx, metrics }) => {
  healthz.register(app);
  readyz.register(app, new ReadinessProbe(ctx));
  if (metrics !== null) metricsRoute.register(app, metrics, ctx.config.metricsToken);
};

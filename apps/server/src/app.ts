import { join } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyPluginCallback } from 'fastify';
import { isDevelopmentSessions } from './config.ts';
import type { Context } from './context.ts';
import type { App } from './http/app-types.ts';
import { problemClientErrorHandler } from './http/client-errors.ts';
import { closingHook } from './http/closing-hook.ts';
import { registerDashboard } from './http/dashboard-static.ts';
import { diskSpaceHook } from './http/disk-space-hook.ts';
import { frameworkErrors, registerErrorHandling } from './http/error-handler.ts';
import { lazySerializerFactory } from './http/lazy-serializers.ts';
import { requestMetricsHook } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi-document.ts';
import { ProblemSchema } from './http/problem-body.ts';
import { OneLineRequestLog } from './http/request-log-line.ts';
import { lazyRequestLogger } from './http/request-logger.ts';
import { declareEdgeStatuses } from './http/responses.ts';
import { MAX_PARAM_LENGTH } from './http/route-methods.ts';
import { adminRoutes } from './routes/admin/index.ts';
import { dashboardRoutes } from './routes/dashboard/index.ts';
import { datasetRoutes } from './routes/datasets/index.ts';
import { devRoutes } from './routes/dev/index.ts';
import { exportRoutes } from './routes/exports/index.ts';
import { ingestRoutes } from './routes/ingest/index.ts';
import { mcpRoutes } from './routes/mcp/index.ts';
import { modelPriceRoutes } from './routes/model-prices/index.ts';
import { offlineRunRoutes } from './routes/offline-runs/index.ts';
import { outboundWebhookRoutes } from './routes/outbound-webhooks/index.ts';
import { probeRoutes } from './routes/probes/index.ts';
import * as metricsRoute from './routes/probes/metrics.ts';
import { promptRoutes } from './routes/prompts/index.ts';
import { publicRoutes } from './routes/public/index.ts';
import { rolloutRoutes } from './routes/rollouts/index.ts';
import { webhookRoutes } from './routes/webhooks/index.ts';
import { validatorCompiler } from './schemas/validators.ts';

export interface AppOptions {
  /** Pino logging; tests pass false. */
  logger?: boolean;
  /** The dashboard build served at `/` (default: apps/dashboard/dist, when it exists). */
  dashboardDist?: string;
  /** How long a connection may stay silent before it is closed (default 30 s). */
  idleTimeoutMs?: number;
  /**
   * Where a production build keeps the OpenAPI document between starts (default: `cache` in the
   * data dir); null keeps nothing.
   */
  openApiStoreDir?: string | null;
  /** The request spans' plugin when traces are exported (tracing.ts); registered before all else. */
  tracing?: FastifyPluginCallback;
}

/** Fastify honours a hop count too, though its types omit it: as the function it stands for. */
function trustProxyOption(setting: Context['config']['trustProxy']) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

/** Where the OpenAPI answer is kept between starts: `cache` in the data dir unless told. */
function openApiStoreDir(ctx: Context, options: AppOptions): string | null {
  return options.openApiStoreDir === undefined
    ? join(ctx.config.dataDir, 'cache')
    : options.openApiStoreDir;
}

/** Each plane is a TypeBox plugin in its own encapsulation context (see http/app-types.ts). */
async function registerPlanes(app: App, ctx: Context): Promise<void> {
  await app.register(probeRoutes, { ctx });
  await app.register(publicRoutes, { ctx });
  await app.register(dashboardRoutes, { ctx });
  await app.register(datasetRoutes, { ctx });
  await app.register(offlineRunRoutes, { ctx });
  await app.register(mcpRoutes, { ctx });
  await app.register(outboundWebhookRoutes, { ctx });
  await app.register(rolloutRoutes, { ctx });
  await app.register(modelPriceRoutes, { ctx });
  await app.register(promptRoutes, { ctx });
  await app.register(exportRoutes, { ctx });
  await app.register(ingestRoutes, { ctx });
  await app.register(webhookRoutes, { ctx });
  await app.register(adminRoutes, { ctx });
  if (isDevelopmentSessions(ctx.config)) await app.register(devRoutes, { ctx });
}

/** Builds the HTTP app from a context; only main.ts listens. Tests call this with inject(). */
export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<App> {
  // The app's requests log through the process's logger, seen as Fastify's logger interface.
  const loggerInstance: FastifyBaseLogger = ctx.log;
  const app: App = Fastify({
    ...(options.logger === false
      ? { logger: false }
      : // One line per request, probes left out.
        {
          loggerInstance,
          childLoggerFactory: lazyRequestLogger,
          logController: new OneLineRequestLog(),
        }),
    bodyLimit: ctx.config.bodyLimitBytes,
    connectionTimeout: options.idleTimeoutMs ?? 30_000,
    requestTimeout: 60_000,
    keepAliveTimeout: 72_000,
    requestIdHeader: 'x-request-id',
    trustProxy: trustProxyOption(ctx.config.trustProxy),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Every answer is a problem, also those given before a route is found.
    clientErrorHandler: problemClientErrorHandler,
    frameworkErrors,
    // While closing, our own hook answers (a problem with Retry-After), not Fastify's bare 503.
    return503OnClosing: false,
    // Each route's response serializers compile on its first answer, not before the listener.
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (options.tracing !== undefined) await app.register(options.tracing);
  app.setValidatorCompiler(validatorCompiler);
  app.addSchema({ $id: 'Problem', ...ProblemSchema });
  // Before any route: every documented route declares the statuses the edge can answer.
  app.addHook('onRoute', declareEdgeStatuses);
  // JSON only unless a route adds its own parser (import adds CSV and NDJSON).
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  app.addHook('onRequest', closingHook(ctx.lifecycle));
  if (ctx.config.metrics) app.addHook('onResponse', requestMetricsHook(ctx.metrics));
  if (ctx.disk !== null) app.addHook('onRequest', diskSpaceHook(ctx.disk));

  await registerOpenApi(app, openApiStoreDir(ctx, options));

  await registerPlanes(app, ctx);
  await registerDashboard(app, options.dashboardDist);

  return app;
}

/**
 * The metrics' own listener (ARBITER_METRICS_PORT): `GET /metrics` alone, with the same token
 * rule and problem answers as on the main listener. main.ts listens on it and closes it with
 * the app.
 */
export async function buildMetricsApp(ctx: Context, options: AppOptions = {}): Promise<App> {
  const loggerInstance: FastifyBaseLogger = ctx.log;
  const app: App = Fastify({
    // It serves only /metrics, a probe: no request lines.
    ...(options.logger === false
      ? { logger: false }
      : { loggerInstance, logController: new OneLineRequestLog() }),
    connectionTimeout: options.idleTimeoutMs ?? 30_000,
    clientErrorHandler: problemClientErrorHandler,
    frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerErrorHandling(app);
  metricsRoute.register(app, ctx.metrics, ctx.config.metricsToken);
  return app;
}

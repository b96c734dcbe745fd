import type { Logger } from 'pino';
import { releaseLeasesOfThisProcess } from './analysis/run/run-lease.ts';
import { startNightlyScheduler } from './analysis/run/scheduler.ts';
import { buildApp, buildMetricsApp } from './app.ts';
import type { Config } from './config.ts';
import { isDevelopmentSessions } from './config.ts';
import type { Context } from './context.ts';
import { removeControlFile, writeControlFile } from './control-file.ts';
import { createContext } from './create-context.ts';
import { withinTimeout } from './db/database-timeout.ts';
import { startTracing } from './tracing.ts';

/** How long a hard stop tries to give back the analysis lease before it exits anyway. */
const HARD_STOP_RELEASE_MS = 1000;

function flushed(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}

/**
 * The end of the process on SIGTERM or SIGINT. At once: `/readyz` answers 503 (the lifecycle
 * is stopping) while the listener keeps serving for ARBITER_SHUTDOWN_DELAY_SECONDS, so load
 * balancers notice, and the scheduler starts no run. Then it closes: a request that still
 * arrives gets a 503 problem, the listener stops accepting, requests in flight finish, the
 * scheduler's run in progress ends, the fold finishes its stretch, the database closes, the
 * traces are exported, the log is flushed, exit 0. Past
 * ARBITER_SHUTDOWN_GRACE_SECONDS it stops hard: the analysis lease is given back if the
 * database lets it, one log line says so, exit 1.
 */
function shutdownOf(
  ctx: Context,
  close: { app: () => Promise<void>; scheduler: () => Promise<void>; traces: () => Promise<void> },
) {
  const { config, log } = ctx;
  let started = false;
  return async (signal: string) => {
    if (started) return;
    started = true;
    ctx.lifecycle.stop();
    // No scheduled run starts from now on; one in progress is waited for below.
    const schedulerStopped = close.scheduler();
    log.info(
      { signal, delay_s: config.shutdownDelaySeconds, grace_s: config.shutdownGraceSeconds },
      'shutting down: /readyz answers 503; the listener closes after the delay',
    );
    const hardStop = setTimeout(async () => {
      await withinTimeout(releaseLeasesOfThisProcess(ctx.db), HARD_STOP_RELEASE_MS).catch(() => 0);
      await withinTimeout(close.traces(), HARD_STOP_RELEASE_MS).catch(() => {});
      log.error(
        `shutdown did not finish within ARBITER_SHUTDOWN_GRACE_SECONDS (${config.shutdownGraceSeconds} s): stopping hard`,
      );
      await flushed(log);
      process.exit(1);
    }, config.shutdownGraceSeconds * 1000);
    await new Promise((resolve) => setTimeout(resolve, config.shutdownDelaySeconds * 1000));
    ctx.lifecycle.close();
    removeControlFile(config.dataDir);
    await Promise.all([close.app(), schedulerStopped]);
    await ctx.close();
    // The spans of the last requests, the last fold stretch and any run go out before the exit.
    await close.traces().catch((err) => log.warn({ err }, 'the last traces were not exported'));
    clearTimeout(hardStop);
    log.info('shut down');
    await flushed(log);
    process.exit(0);
  };
}

/** The process: config → context → app → listen; signals end it gracefully. */
export async function serve(config: Config): Promise<void> {
  const ctx = await createContext(config);
  // Before the app, the fold and the scheduler start any span.
  const tracing = await startTracing(config, ctx.log);
  if (config.devSessionsOffLoopback) {
    ctx.log.warn(
      `ARBITER_DEV_SESSIONS_OFF_LOOPBACK is on: development sessions are served on ${config.host}, so anyone who reaches this port can sign in as anyone; for a local trial only, never in production (set ARBITER_SESSION_JWKS_URL instead)`,
    );
  }
  if (config.metricsOpenOffLoopback) {
    ctx.log.warn(
      `ARBITER_METRICS is on without ARBITER_METRICS_TOKEN on ${config.host}: anyone who reaches the ${config.metricsPort === null ? 'port' : 'metrics port'} can read /metrics (request rates, org counts, queue depths); set ARBITER_METRICS_TOKEN or bind to a loopback address`,
    );
  }
  const app = await buildApp(ctx, { tracing: tracing?.plugin });
  const metricsApp = config.metricsPort === null ? null : await buildMetricsApp(ctx);
  if (config.ingestWorker) ctx.worker.start();
  // Runs another process left in `scoring` are resumed here too (docs/decisions/offline-evaluation.md#offline-runs).
  ctx.offlineScoring.start();
  // Outbound webhooks are sent and ramps advance from here (docs/webhooks.md, docs/rollouts.md).
  ctx.webhookDelivery.start();
  ctx.rollouts.start();
  // Stored patterns a save would now refuse are found, logged and never run from here on.
  ctx.patterns.scan(ctx.clock.now()).catch((err: unknown) => {
    ctx.log.warn({ err }, 'the scan of stored patterns failed');
  });
  const scheduler = config.scheduler ? startNightlyScheduler(ctx, app.log) : null;
  const shutdown = shutdownOf(ctx, {
    app: async () => {
      await Promise.all([app.close(), metricsApp?.close()]);
    },
    scheduler: async () => scheduler?.stop(),
    traces: async () => tracing?.shutdown(),
  });
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  const address = await app.listen({ port: config.port, host: config.host });
  const metricsAddress = await metricsApp?.listen({
    port: config.metricsPort ?? 0,
    host: config.host,
  });
  const url = address.replace('[::1]', 'localhost').replace('127.0.0.1', 'localhost');
  if (ctx.dbKind === 'pglite')
    writeControlFile(config.dataDir, { url: address, pid: process.pid, token: ctx.controlToken });
  const lines = [
    `Arbiter is running at ${url}`,
    `  API reference: ${url}/docs   OpenAPI: ${url}/v1/openapi.json`,
    `  Database: ${ctx.dbKind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL server'}`,
  ];
  if (metricsAddress !== undefined) lines.push(`  Metrics: ${metricsAddress}/metrics`);
  if (isDevelopmentSessions(config)) {
    lines.push(
      '  Development sessions: get a token with',
      '    npx arbiter token --email you@example.com --org my-org --role admin',
      `  and send it as: curl -H "Authorization: Bearer $TOKEN" ${url}/v1/whoami`,
      '  See results within a minute: npx arbiter demo   (first steps: docs/quickstart.md)',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

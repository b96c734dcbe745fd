import { startNightlyScheduler } from './analysis/scheduler.ts';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { isDevelopmentSessions } from './config.ts';
import { removeControlFile, writeControlFile } from './control-file.ts';
import { createContext } from './create-context.ts';

/** The process: config → context → app → listen; signals end it gracefully. */
export async function serve(config: Config): Promise<void> {
  const ctx = await createContext(config);
  if (config.sessionJwksUrl !== null && config.sessionAudience === null) {
    ctx.log.warn(
      'ARBITER_SESSION_AUDIENCE is not set: session tokens the identity provider issued for any of its applications are accepted; set it to this deployment’s audience',
    );
  }
  const app = await buildApp(ctx);
  if (config.ingestWorker) ctx.worker.start();
  const scheduler = config.scheduler ? startNightlyScheduler(ctx, app.log) : null;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    scheduler?.stop();
    removeControlFile(config.dataDir);
    await app.close();
    await ctx.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('[::1]', 'localhost').replace('127.0.0.1', 'localhost');
  if (ctx.dbKind === 'pglite')
    writeControlFile(config.dataDir, { url: address, pid: process.pid, token: ctx.controlToken });
  const lines = [
    `Arbiter is running at ${url}`,
    `  API reference: ${url}/docs   OpenAPI: ${url}/v1/openapi.json`,
    `  Database: ${ctx.dbKind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL server'}`,
  ];
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

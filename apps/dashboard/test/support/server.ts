import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '../../../server/test/support/process.ts';

export interface TestServer {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * `arbiter serve` on PGlite in a fresh data folder, with the development sign-in and no
 * scheduler (the tests run the pipeline when they need a run), plus the settings given (an
 * `ARBITER_DATA_DIR` among them starts it on that folder's database).
 */
export async function serveEmbedded(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = env.ARBITER_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'arbiter-dashboard-'));
  const server: RunningServer = await startServer({
    ARBITER_SESSION_JWKS_URL: '',
    ARBITER_DATABASE_URL: '',
    ARBITER_SECRET_KEY: '',
    ARBITER_SCHEDULER: 'false',
    ...env,
    ARBITER_DATA_DIR: dataDir,
  });
  return {
    url: server.url,
    dataDir,
    async stop() {
      server.child.kill('SIGTERM');
      await server.exited;
    },
  };
}

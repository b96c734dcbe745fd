import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devEnv, type RunningServer, startServer } from './process.ts';
import {
  blocks,
  type Packages,
  type PageRun,
  packages,
  runPage,
  workFolderWithPackedClient,
} from './runnable-page.ts';

/** A documentation page run against a fresh embedded server, and what a test reads after. */
export interface PageOnServer {
  env: Record<string, string>;
  dataDir: string;
  server: RunningServer;
  workDir: string;
  packed: Packages;
  run: PageRun;
}

/** Starts a fresh embedded server and runs every block of the page at `path` against it. */
export async function runPageOnFreshServer(path: string, name: string): Promise<PageOnServer> {
  const packed = packages();
  const dataDir = mkdtempSync(join(tmpdir(), `arbiter-${name}-`));
  const env = devEnv(dataDir);
  const server = await startServer(env);
  const workDir = workFolderWithPackedClient(`.${name}-`, packed);
  const run = runPage(blocks(readFileSync(path, 'utf8')), {
    workDir,
    serverUrl: server.url,
    packed,
    env,
  });
  return { env, dataDir, server, workDir, packed, run };
}

/** Stops the server if a test has not, and removes everything the page run made. */
export async function cleanUpPage(page: PageOnServer | undefined): Promise<void> {
  if (!page) return;
  rmSync(page.workDir, { recursive: true, force: true });
  if (page.server.child.exitCode === null) {
    page.server.child.kill('SIGTERM');
    await page.server.exited;
  }
  rmSync(page.dataDir, { recursive: true, force: true });
  if (page.packed.own) rmSync(page.packed.dir, { recursive: true, force: true });
}

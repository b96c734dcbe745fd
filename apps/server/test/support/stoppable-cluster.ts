import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asClusterOwner, ENSURE_POSTGRES } from './cluster-owner.ts';
import { freePort } from './process.ts';

const STOP_POSTGRES = fileURLToPath(
  new URL('../../../../scripts/stop-postgres.sh', import.meta.url),
);

/** A PostgreSQL cluster of a test's own that the test stops and starts again (a shard going down). */
export interface StoppableCluster {
  /** Its admin URL: the same port before and after a restart. */
  url: string;
  /** Stops the server (fast: open sessions end); its data stays. */
  stop(): void;
  /** Starts the stopped server again on the same port, with the same data. */
  start(): void;
  /** Stops it if it runs and removes its folder. */
  remove(): void;
}

/** Starts a cluster in a new temporary folder, apart from the test server, on a free port. */
export async function startStoppableCluster(): Promise<StoppableCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-own-pg-'));
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    ARBITER_TEST_PG_DIR: dir,
    ARBITER_TEST_PG_PORT: String(port),
  };
  delete env.ARBITER_TEST_DATABASE_URL;
  const remove = () => execFileSync('bash', [STOP_POSTGRES, dir], { stdio: 'ignore' });
  let url: string;
  try {
    url = execFileSync('bash', [ENSURE_POSTGRES], { env, encoding: 'utf8' }).trim();
  } catch (error) {
    remove();
    throw error;
  }
  const bin = execFileSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1'], {
    encoding: 'utf8',
  }).trim();
  const pgCtl = join(bin, 'pg_ctl');
  const data = join(dir, 'data');
  return {
    url,
    stop: () => asClusterOwner([pgCtl, '-D', data, '-m', 'fast', '-w', 'stop']),
    start: () =>
      asClusterOwner([
        pgCtl,
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
        'start',
      ]),
    remove,
  };
}

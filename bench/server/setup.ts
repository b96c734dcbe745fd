import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { experimentConfig, modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { type RunningServer, runCli, startServer } from '../../apps/server/test/support/process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A fresh database on the local PostgreSQL server the test command also uses. */
export async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = execFileSync('bash', [join(ROOT, 'scripts/ensure-postgres.sh')], {
    encoding: 'utf8',
  }).trim();
  const name = `arbiter_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface BenchServer {
  server: RunningServer;
  session: Record<string, string>;
  experimentId: string;
  secretKey: string;
  /** The server's environment: `arbiter token` with it signs in to another org. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** `arbiter serve` as its own process on PostgreSQL, with an org, an experiment and a secret key. */
export async function startBenchServer(
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
  /** Another build's `arbiter` to start (a reference to compare with); default this one. */
  bin?: string,
): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-bench-'));
  const env = {
    ARBITER_DATA_DIR: dataDir,
    ARBITER_SESSION_JWKS_URL: '',
    ARBITER_DATABASE_URL: databaseUrl,
    ARBITER_ENFORCE_LIMITS: 'false',
    ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '100000000',
    ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE: '100000000',
    ARBITER_LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  // e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const server = await startServer(env, nodeArgs, bin);
  const token = runCli(
    ['token', '--email', 'bench@example.com', '--org', 'bench', '--role', 'admin'],
    env,
  ).stdout;
  const session = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const exp = (await (
    await fetch(`${server.url}/v1/experiments`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify(
        experimentConfig({ name: 'bench', salt: 'bench-salt', bucket_count: 10_000, metrics: [] }),
      ),
    })
  ).json()) as { id: string };
  const key = (await (
    await fetch(`${server.url}/v1/keys`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ scope: 'secret' }),
    })
  ).json()) as { key: string };
  return {
    server,
    session,
    experimentId: exp.id,
    secretKey: key.key,
    env,
    async stop() {
      server.child.kill('SIGTERM');
      await server.exited;
      // its data folder goes with it: a run of many benchmarks leaves nothing in the TMPDIR
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `run` against a bench server on a fresh database; on failure the server's last output is
 * printed, and the server and its database go either way.
 */
export async function onBenchServer(
  extraEnv: Record<string, string>,
  /** Called with the server and its database's URL, for a bench that reads the tables itself. */
  run: (bench: BenchServer, databaseUrl: string) => Promise<void>,
  /** Another build's `arbiter` to start; default this one. */
  bin?: string,
): Promise<void> {
  const db = await freshPostgres();
  const bench = await startBenchServer(db.url, extraEnv, bin);
  try {
    await run(bench, db.url);
  } catch (error) {
    console.error(`server output:\n${bench.server.output().slice(-3000)}`);
    throw error;
  } finally {
    await bench.stop();
    await db.drop();
  }
}

/** User + system CPU seconds of a process so far (Linux /proc; NaN elsewhere). */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" that closes the command name: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds so far of each PostgreSQL process working for `client`'s database: its backends
 * and autovacuum workers, and the server-wide WAL writer, checkpointer and background writer
 * (shared with other databases). On a server other databases use too, this leaves their
 * backends out; take the difference of two readings with `cpuSecondsBetween`.
 */
export async function databaseCpuSeconds(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>(
    `select pid from pg_stat_activity where datname = current_database()
       or backend_type in ('walwriter', 'checkpointer', 'background writer')`,
  );
  return new Map(rows.map((r) => [r.pid, cpuSecondsOf(r.pid)]));
}

/**
 * CPU seconds spent between two readings by the processes of the later one (a process born in
 * between counts whole). Per process, so one that exits in between cannot make it negative.
 */
export function cpuSecondsBetween(before: Map<number, number>, after: Map<number, number>) {
  let total = 0;
  for (const [pid, seconds] of after) {
    if (Number.isFinite(seconds)) total += seconds - (before.get(pid) ?? 0);
  }
  return total;
}

/**
 * POSTs a JSON body with an API key and answers the status: a lean keep-alive sender, since
 * fetch costs the client more CPU than the server spends.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
export function postEvents(url: string, key: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** How many senders sendModelCalls runs at once. */
export const SENDERS = 8;

/**
 * `batches` batches of `perBatch` model calls to `experiment`, SENDERS at once, sender k to
 * API process k mod their number (as a load balancer spreads connections); user ids cycle
 * through 50,000. Any answer but 202 ends the run.
 */
export async function sendModelCalls(
  urls: readonly string[],
  key: string,
  experiment: string,
  prefix: string,
  batches: number,
  perBatch: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, k) => {
      const url = urls[k % urls.length] as string;
      while (next < batches) {
        const b = next++;
        const events = modelCallsForUsers(experiment, perBatch, {
          prefix: `${prefix}-${b}`,
          userOf: (i) => `user-${(b * perBatch + i) % 50_000}`,
        });
        const status = await postEvents(`${url}/v1/events`, key, JSON.stringify({ events }));
        if (status !== 202) throw new Error(`POST /v1/events answered ${status}`);
      }
    }),
  );
}

/**
 * Waits for `stored` events to be stored and none pending fold: `looks` looks `everyMs` apart;
 * past them the fold is stuck and the run ends with an error.
 */
export async function untilFolded(
  client: pg.Client,
  stored: number,
  { looks, everyMs }: { looks: number; everyMs: number },
): Promise<void> {
  for (let look = 0; look < looks; look++) {
    const { rows } = await client.query<{ stored: number; pending: number }>(
      `select (select count(*)::int from events) as stored,
        (select count(*)::int from ingest_pending) as pending`,
    );
    if (rows[0]?.stored === stored && rows[0]?.pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${stored} events not stored and folded within ${looks} looks`);
}

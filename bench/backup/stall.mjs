// How long a backup holds the server: GET /healthz every 10 ms against `arbiter serve` on an
// embedded database with some data, while `arbiter backup --out` runs. Prints the slowest
// answer and how many took over 100 ms. Run after a build (apps/server/dist):
//   node bench/backup/stall.mjs [filler rows, default 300000]   (ARBITER_BIN: another build)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

const bin =
  process.env.ARBITER_BIN ?? resolve(import.meta.dirname, '../../apps/server/bin/arbiter.js');
const rows = Number(process.argv[2] ?? 300_000);
const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-backup-stall-'));
const port = await new Promise((done) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => done(port));
  });
});
const env = {
  ...process.env,
  ARBITER_DATA_DIR: dataDir,
  ARBITER_SESSION_JWKS_URL: '',
  ARBITER_DATABASE_URL: '',
  ARBITER_SECRET_KEY: '',
  ARBITER_PORT: String(port),
  ARBITER_SHUTDOWN_DELAY_SECONDS: '0',
};
const base = `http://127.0.0.1:${port}`;

async function serve() {
  const child = spawn(process.execPath, [bin, 'serve'], { env, stdio: 'ignore' });
  for (;;) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return child;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
}
const stopped = (child) => new Promise((r) => child.once('exit', r).kill('SIGTERM'));

// A first start creates and migrates the database; rows of filler make it a real size.
await stopped(await serve());
const pg = await PGlite.create({ dataDir: join(dataDir, 'pgdata') });
await pg.exec(
  `create table filler as select g, md5(g::text) || md5((g + 1)::text) as t from generate_series(1, ${rows}) g; checkpoint`,
);
await pg.close();
const du = spawnSync('du', ['-sh', join(dataDir, 'pgdata')], { encoding: 'utf8' }).stdout.trim();

const server = await serve();
const latencies = [];
let polling = true;
const poll = (async () => {
  while (polling) {
    const started = performance.now();
    await fetch(`${base}/healthz`);
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 10));
  }
})();
await new Promise((r) => setTimeout(r, 1000));
const started = performance.now();
const backup = spawn(
  process.execPath,
  [bin, 'backup', '--out', join(dataDir, '..', `${port}.tar.gz`)],
  {
    env,
    stdio: 'inherit',
  },
);
await new Promise((r) => backup.once('exit', r));
const backupMs = performance.now() - started;
await new Promise((r) => setTimeout(r, 1000));
polling = false;
await poll;
await stopped(server);
latencies.sort((a, b) => b - a);
console.log(
  JSON.stringify({
    pgdata: du,
    backup_ms: Math.round(backupMs),
    healthz_answers: latencies.length,
    slowest_ms: latencies.slice(0, 3).map(Math.round),
    over_100ms: latencies.filter((ms) => ms > 100).length,
    load: (await import('node:os')).loadavg().map((l) => l.toFixed(1)),
  }),
);

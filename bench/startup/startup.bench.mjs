// Start-up times of the production build, each against `node -e 0` measured in the same run
// (the machine is shared and noisy). Plain Node, like the `arbiter` command itself.
//   node bench/startup/startup.bench.mjs        (after `sh scripts/bootstrap.sh`)
//   knobs: BENCH_ROUNDS (5)
// Measures, per round and interleaved so that other work on the machine falls on all of them:
//   baseline   node -e 0, spawn to exit
//   token      arbiter token --email … --org …, spawn to exit (data dir with its keys made)
//   restart    arbiter serve on a data dir that has a database, spawn to the first 200 of
//              GET /v1/openapi.json (the readiness probe)
//   first      arbiter serve on an empty data dir, spawn to the first 200
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../apps/server/bin/arbiter.js', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const devEnv = (dataDir) => ({
  ...process.env,
  ARBITER_DATA_DIR: dataDir,
  ARBITER_PORT: '0',
  ARBITER_LOG_LEVEL: 'warn',
  ARBITER_SESSION_JWKS_URL: '',
  ARBITER_DATABASE_URL: '',
});

function timeToExit(args, env = process.env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args} exited ${code}`)),
    );
  });
}

/** Spawns `arbiter serve`, waits for the first 200 of the readiness probe, stops it. */
function timeToReady(dataDir) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: devEnv(dataDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = async (chunk) => {
      output += chunk;
      const match = /Arbiter is running at (http:\/\/\S+)/.exec(output);
      if (!match) return;
      child.stdout.off('data', onData);
      const res = await fetch(`${match[1]}/v1/openapi.json`);
      await res.arrayBuffer();
      const elapsed = performance.now() - start;
      child.once('exit', () =>
        res.status === 200 ? resolve(elapsed) : reject(new Error(`${res.status}`)),
      );
      child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c) => {
      output += c;
    });
    child.once('exit', (code) => {
      if (!/Arbiter is running/.test(output)) reject(new Error(`serve exited ${code}: ${output}`));
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const loadBefore = loadavg();
const kept = mkdtempSync(join(tmpdir(), 'arbiter-bench-startup-'));
const fresh = [];
// Warm-up: the kept data dir gets its database and development keys, the OS its file cache.
await timeToReady(kept);
await timeToExit([BIN, 'token', '--email', 'b@example.com', '--org', 'bench'], devEnv(kept));

const times = { baseline: [], token: [], restart: [], first: [] };
for (let round = 0; round < ROUNDS; round++) {
  times.baseline.push(await timeToExit(['-e', '0']));
  times.token.push(
    await timeToExit([BIN, 'token', '--email', 'b@example.com', '--org', 'bench'], devEnv(kept)),
  );
  times.restart.push(await timeToReady(kept));
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-fresh-'));
  fresh.push(dir);
  times.first.push(await timeToReady(dir));
}
const loadAfter = loadavg();
for (const dir of [kept, ...fresh]) rmSync(dir, { recursive: true, force: true });

const base = median(times.baseline);
const goals = { token: 1000, restart: 3000, first: 10000 };
console.log(
  `rounds: ${ROUNDS}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
);
console.log(
  '| measure | median ms | min ms | max ms | ratio to node -e 0 (medians) | goal | met |',
);
console.log('| --- | ---: | ---: | ---: | ---: | --- | --- |');
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  const goal = goals[name];
  console.log(
    `| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${(m / base).toFixed(1)} | ${goal ? `< ${goal} ms` : '—'} | ${goal ? (m < goal ? 'yes' : 'NO') : '—'} |`,
  );
}

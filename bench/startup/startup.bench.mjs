// Start-up times of the production build, each against `node -e 0` measured in the same run
// (the machine is shared and noisy). Plain Node, like the `arbiter` command itself.
//   node bench/startup/startup.bench.mjs        (after `sh scripts/bootstrap.sh`)
//   knobs: BENCH_ROUNDS (5); scale curve: BENCH_SCALE_ROUNDS (6), BENCH_SCALE_EXPERIMENTS (4),
//   BENCH_SCALE_USERS (2000) per experiment; BENCH_SCALE=0 skips the curve; BENCH_LOAD=N keeps N
//   busy processes running through every round (a controlled load: restarts happen when the
//   machine is busy), after BENCH_LOAD_WARMUP seconds (60) for the load average to follow
// Measures, per round and interleaved so that other work on the machine falls on all of them:
//   baseline   node -e 0, spawn to exit
//   token      arbiter token --email … --org …, spawn to exit (data dir with its keys made)
//   restart    arbiter serve on a data dir that has a database, spawn to the first 200 of
//              GET /v1/openapi.json (the readiness probe)
//   first      arbiter serve on an empty data dir, spawn to the first 200
// Beside the wall times, the CPU time the server process used up to its first 200 (all its
// threads, from /proc), which other work on the machine changes far less than the wall time;
// and the one-minute load average (what `uptime` prints) before each round.
// Then a scale curve: restart on data dirs holding 1×, 4× and 16× the stored data (experiments,
// each with its users' exposures and model calls, folded), interleaved with `node -e 0` again.
// Token and first start are left out of it: neither opens stored data.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// BENCH_BIN: another build's `arbiter` (a copy of an older dist/, to compare in the same hour).
const BIN =
  process.env.BENCH_BIN ??
  fileURLToPath(new URL('../../apps/server/bin/arbiter.js', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SCALE_ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 6);
const SCALE_EXPERIMENTS = Number(process.env.BENCH_SCALE_EXPERIMENTS ?? 4);
const SCALE_USERS = Number(process.env.BENCH_SCALE_USERS ?? 2000);
const LOAD = Number(process.env.BENCH_LOAD ?? 0);
const LOAD_WARMUP_S = Number(process.env.BENCH_LOAD_WARMUP ?? 60);
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

/** CPU time (user + system, all threads) a running process has used so far, in ms. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // clock ticks: 100 a second
}

/** N processes spinning on a core each, until stopped: the bench's controlled load. */
function startLoad(n) {
  const spinners = [];
  for (let i = 0; i < n; i++) {
    const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    child.unref(); // the bench ends when its work does; the exit handler stops the spinners
    spinners.push(child);
  }
  return () => {
    for (const child of spinners) child.kill('SIGKILL');
  };
}

/** Spawns `arbiter serve` and resolves with its URL once it says it is running. */
function startServe(dataDir, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...devEnv(dataDir), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk) => {
      output += chunk;
      const match = /Arbiter is running at (http:\/\/\S+)/.exec(output);
      if (!match) return;
      child.stdout.off('data', onData);
      resolve({ child, url: match[1] });
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

const stop = (child) =>
  new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });

/**
 * Spawns `arbiter serve`, waits for the first 200 of the readiness probe, stops it. Its wall
 * time in ms; `cpu` (when given) gets the server's CPU time up to that answer.
 */
async function timeToReady(dataDir, cpu = []) {
  const start = performance.now();
  const { child, url } = await startServe(dataDir);
  const res = await fetch(`${url}/v1/openapi.json`);
  await res.arrayBuffer();
  const elapsed = performance.now() - start;
  cpu.push(cpuMsOf(child.pid));
  await stop(child);
  if (res.status !== 200) throw new Error(`${res.status}`);
  return elapsed;
}

async function api(url, method, path, { token, key, body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (key) headers['x-api-key'] = key;
  const res = await fetch(`${url}${path}`, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 400)}`);
  return text ? JSON.parse(text) : null;
}

function userEvents(id, users) {
  const ts = new Date().toISOString();
  const events = [];
  for (let u = 0; u < users; u++) {
    const variant = u % 2 ? 'treatment' : 'control';
    const base = { experiment_id: id, user_id: `u${u}`, timestamp: ts, variant };
    events.push({ ...base, event_id: `x-${id}-${u}`, type: 'exposure' });
    events.push({
      ...base,
      event_id: `m-${id}-${u}`,
      type: 'model_call',
      latency_ms: 400 + (u % 200),
      input_tokens: 300 + (u % 50),
      output_tokens: 80,
      cost_usd: 0.001,
      model: 'm',
    });
  }
  return events;
}

/** Waits until the ingest worker has folded every exposure of the experiment. */
async function waitFolded(url, token, id, users) {
  for (;;) {
    const live = await api(url, 'GET', `/v1/experiments/${id}/live`, { token });
    const seen = Object.values(live.arms).reduce((n, a) => n + a.exposures, 0);
    if (seen >= users) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A data dir holding `experiments` experiments of SCALE_USERS users, written through the API. */
async function seedDataDir(experiments) {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-scale-'));
  // Self-hosting without billing: the free plan's allowance would refuse the larger steps.
  const { child, url } = await startServe(dir, { ARBITER_ENFORCE_LIMITS: 'false' });
  const session = { email: 'b@example.com', org: 'bench', role: 'admin' };
  const { token } = await api(url, 'POST', '/v1/dev/session', { body: session });
  const { key } = await api(url, 'POST', '/v1/keys', { token, body: { scope: 'secret' } });
  const metric = (name, method) => ({
    name,
    kind: name,
    category: 'primary',
    method_default: method,
    metric_version: 1,
    shared_org_wide: false,
  });
  for (let e = 0; e < experiments; e++) {
    const body = {
      name: `scale-${e}`,
      salt: `scale-${e}-salt`,
      bucket_count: 1000,
      allocation: [
        { variant: 'control', weight: 50 },
        { variant: 'treatment', weight: 50 },
      ],
      metrics: [metric('latency', 'welch_t'), metric('tokens', 'mann_whitney')],
    };
    const { id } = await api(url, 'POST', '/v1/experiments', { token, body });
    const events = userEvents(id, SCALE_USERS);
    for (let i = 0; i < events.length; i += 1000)
      await api(url, 'POST', '/v1/events', { key, body: { events: events.slice(i, i + 1000) } });
    await waitFolded(url, token, id, SCALE_USERS);
  }
  await stop(child);
  const kib = Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]);
  return { dir, experiments, events: experiments * SCALE_USERS * 2, mib: kib / 1024 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const stopLoad = startLoad(LOAD);
process.once('exit', stopLoad); // also when a step throws: no spinner outlives the bench
if (LOAD > 0) await new Promise((r) => setTimeout(r, LOAD_WARMUP_S * 1000));
const loadBefore = loadavg();
const kept = mkdtempSync(join(tmpdir(), 'arbiter-bench-startup-'));
const fresh = [];
// Warm-up: the kept data dir gets its database and development keys, the OS its file cache.
await timeToReady(kept);
await timeToExit([BIN, 'token', '--email', 'b@example.com', '--org', 'bench'], devEnv(kept));

const times = { baseline: [], token: [], restart: [], first: [] };
const cpu = { restart: [], first: [] };
const roundLoads = [];
for (let round = 0; round < ROUNDS; round++) {
  roundLoads.push(loadavg()[0]);
  times.baseline.push(await timeToExit(['-e', '0']));
  times.token.push(
    await timeToExit([BIN, 'token', '--email', 'b@example.com', '--org', 'bench'], devEnv(kept)),
  );
  times.restart.push(await timeToReady(kept, cpu.restart));
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-fresh-'));
  fresh.push(dir);
  times.first.push(await timeToReady(dir, cpu.first));
}
const loadAfter = loadavg();
for (const dir of [kept, ...fresh]) rmSync(dir, { recursive: true, force: true });

const base = median(times.baseline);
const goals = { token: 1000, restart: 3000, first: 10000 };
console.log(
  `rounds: ${ROUNDS}; BENCH_LOAD ${LOAD} busy processes; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}; one-minute load before each round ${roundLoads.map((l) => l.toFixed(1)).join(', ')}`,
);
console.log(
  '| measure | median ms | min ms | max ms | ratio to node -e 0 (medians) | server CPU ms (median) | goal | met |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |');
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  const goal = goals[name];
  const cpuMs = cpu[name] ? median(cpu[name]).toFixed(0) : '—';
  console.log(
    `| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${(m / base).toFixed(1)} | ${cpuMs} | ${goal ? `< ${goal} ms` : '—'} | ${goal ? (m < goal ? 'yes' : 'NO') : '—'} |`,
  );
}

/** Restart against the stored data: 1×, 4×, 16×, each round interleaved with `node -e 0`. */
async function scaleCurve() {
  const steps = [];
  for (const factor of [1, 4, 16])
    steps.push({ factor, ...(await seedDataDir(SCALE_EXPERIMENTS * factor)), restart: [] });
  const loadStart = loadavg();
  const baseline = [];
  for (const step of steps) await timeToReady(step.dir); // warm-up: the OS file cache
  for (let round = 0; round < SCALE_ROUNDS; round++) {
    baseline.push(await timeToExit(['-e', '0']));
    // The order rotates each round: no step always comes first after the baseline's spawn.
    for (let i = 0; i < steps.length; i++) {
      const step = steps[(round + i) % steps.length];
      step.restart.push(await timeToReady(step.dir));
    }
  }
  const loadEnd = loadavg();
  for (const step of steps) rmSync(step.dir, { recursive: true, force: true });
  console.log(
    `\nscale curve, restart on stored data (${SCALE_ROUNDS} rounds; load average before ${loadStart.map((l) => l.toFixed(2)).join(' ')}, after ${loadEnd.map((l) => l.toFixed(2)).join(' ')}):`,
  );
  console.log(
    '| stored data | data dir MiB | restart median ms | min ms | max ms | ratio to node -e 0 | ratio to 1× |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const b = median(baseline);
  const first = median(steps[0].restart);
  for (const step of steps) {
    const m = median(step.restart);
    console.log(
      `| ${step.factor}×: ${step.experiments} experiments, ${step.events.toLocaleString('en')} events | ${step.mib.toFixed(0)} | ${m.toFixed(0)} | ${Math.min(...step.restart).toFixed(0)} | ${Math.max(...step.restart).toFixed(0)} | ${(m / b).toFixed(1)} | ${(m / first).toFixed(2)} |`,
    );
  }
  console.log(`(node -e 0 in these rounds: median ${b.toFixed(0)} ms)`);
}

if (process.env.BENCH_SCALE !== '0') await scaleCurve();

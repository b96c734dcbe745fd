/**
 * POST /v1/assign requests per second and p99 latency under
 * keep-alive load, against a bare Fastify route answering a constant JSON body, measured side
 * by side in one run on the same machine. Goals: ratio >= 0.85, server CPU per request >= 0.8
 * of the baseline's, p99 <= 10 ms. Then the scale curve: both at 1x, 4x and 16x the concurrent
 * connections (BENCH_SCALE_CONNECTIONS, 2), BENCH_SCALE_SECONDS (4) each; BENCH_SCALE_SECONDS=0
 * skips it.
 *
 * Arbiter: `arbiter serve` as its own process on a fresh PostgreSQL database (startBenchServer);
 * rate limits raised there. Baseline: Fastify 5 in its own child process. Load: autocannon in
 * this process, keep-alive, pipelining 1; every request carries another user id (setupRequest).
 *
 * Run: npx tsx bench/server/assign-latency.bench.ts
 * The measured time of each target is split into BENCH_ROUNDS alternating rounds (baseline,
 * Arbiter, baseline, ...), so that load from other work on a shared machine falls on both.
 * Env: BENCH_CONNECTIONS (10), BENCH_DURATION seconds per target (10), BENCH_ROUNDS (2),
 * BENCH_WARMUP seconds (3).
 *
 * Against a reference build (traces: with no OTLP endpoint the tracing code must keep
 * `POST /v1/assign` within 3 % of the code without it): BENCH_REFERENCE_BIN is the `arbiter`
 * (apps/server/bin/arbiter.js) of a built checkout of the code before the change. It serves as a
 * third target on its own fresh database, in the same alternating rounds (the order of the two
 * Arbiter builds swaps each round), and the run prints this build's req/s, p50 and p99 against
 * the reference's. Both run with no OTEL_* endpoint set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type AutocannonResult, autocannon } from './autocannon.ts';
import { type BenchServer, cpuSecondsOf, freshPostgres, startBenchServer } from './setup.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const GOAL_RATIO = 0.85;
const GOAL_CPU_RATIO = 0.8;
/** Scale curve: connections at 1x, 4x, 16x this, SCALE_SECONDS per target and step. */
const SCALE_CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 2);
const SCALE_SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 4);
const IDLE_SECONDS = 3;
const GOAL_P99_MS = 10;
const REFERENCE_BIN = process.env.BENCH_REFERENCE_BIN ?? '';
/** This build's req/s at least 97 % of the reference's: "within 3 %". */
const GOAL_REFERENCE_RATIO = 0.97;
/** No trace export in either Arbiter: what is measured is the tracing code's cost when off. */
const NO_TRACES = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
const USERS = 1_000_000;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The baseline: a bare Fastify 5 route with a constant JSON answer, in its own process. */
const BASELINE_SCRIPT = `
import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.post('/v1/assign', async () => ({ variant: 'control', config_version: 1 }));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log('BASELINE ' + address);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

function startBaseline(): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BASELINE_SCRIPT], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /BASELINE (http:\/\/\S+)/.exec(output);
      if (match)
        resolve({
          url: match[1] as string,
          child,
          async stop() {
            child.kill('SIGTERM');
            await exited;
          },
        });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`baseline exited:\n${output}`)));
  });
}

interface Target {
  url: string;
  apiKey: string;
  /** Experiment ids/names the requests cycle through. */
  experiment: string[];
  /** The server process, for its CPU time. */
  pid: number | undefined;
  /**
   * CPU seconds per second the process spends with no request (Arbiter's background work: the
   * fold worker, the change feed), measured before the load and taken out of each run's CPU.
   */
  idleCpu: number;
}

interface Run {
  result: AutocannonResult;
  /** 2xx response times in ms, sorted: autocannon's own histogram keeps whole milliseconds. */
  times: Float64Array;
  /** CPU seconds (user + system) the server process used during the run; NaN without /proc. */
  cpuSeconds: number;
}

/** Keep-alive load with a different user (and alternately name or id) on every request. */
async function load(target: Target, seconds: number, connections = CONNECTIONS): Promise<Run> {
  const { url, apiKey, experiment } = target;
  let n = 0;
  const times: number[] = [];
  const cpuBefore = cpuSecondsOf(target.pid);
  const instance = autocannon({
    url: `${url}/v1/assign`,
    connections,
    duration: seconds,
    pipelining: 1,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    requests: [
      {
        setupRequest(request) {
          n++;
          request.body = JSON.stringify({
            experiment_id: experiment[n % experiment.length],
            user_id: `user-${(n * 7919) % USERS}`,
          });
          return request;
        },
      },
    ],
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) times.push(ms);
  });
  const result = await instance;
  const cpuSeconds = cpuSecondsOf(target.pid) - cpuBefore - target.idleCpu * result.duration;
  return { result, times: Float64Array.from(times).sort(), cpuSeconds };
}

/** The rounds of one target as one run: counts and durations summed, response times merged. */
function combine(runs: Run[]): Run {
  const sum = (f: (r: AutocannonResult) => number) => runs.reduce((n, r) => n + f(r.result), 0);
  const all: number[] = [];
  for (const r of runs) for (const t of r.times) all.push(t);
  return {
    result: {
      duration: sum((r) => r.duration),
      errors: sum((r) => r.errors),
      timeouts: sum((r) => r.timeouts),
      non2xx: sum((r) => r.non2xx),
      '2xx': sum((r) => r['2xx']),
    },
    times: Float64Array.from(all).sort(),
    cpuSeconds: runs.reduce((n, r) => n + r.cpuSeconds, 0),
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function check(label: string, run: Run): void {
  const r = run.result;
  if (r.errors > 0 || r.timeouts > 0 || r.non2xx > 0 || r['2xx'] === 0) {
    throw new Error(
      `${label}: ${r['2xx']} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
    );
  }
}

const rate = (run: Run) => run.result['2xx'] / run.result.duration;
/** Server CPU microseconds per answered request: less sensitive to a shared machine than req/s. */
const cpuPerRequest = (run: Run) => (run.cpuSeconds * 1e6) / run.result['2xx'];
const ms = (v: number) => `${v.toFixed(2)} ms`;

async function idleCpuOf(pid: number | undefined): Promise<number> {
  const before = cpuSecondsOf(pid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  return (cpuSecondsOf(pid) - before) / IDLE_SECONDS;
}

/** How answers per second, p99 and CPU per request move as the concurrent connections grow. */
async function scaleCurve(base: Target, arbiter: Target): Promise<void> {
  console.log(
    '\nscale curve: connections | baseline req/s, p99 | arbiter req/s, p99, CPU µs/req | ratio req/s, CPU',
  );
  for (const factor of [1, 4, 16]) {
    const connections = SCALE_CONNECTIONS * factor;
    const b = await load(base, SCALE_SECONDS, connections);
    const a = await load(arbiter, SCALE_SECONDS, connections);
    check(`scale baseline ${connections}`, b);
    check(`scale arbiter ${connections}`, a);
    console.log(
      `${String(factor).padStart(3)}x ${String(connections).padStart(4)} | ${Math.round(rate(b))} req/s, ${ms(percentile(b.times, 99))} | ${Math.round(rate(a))} req/s, ${ms(percentile(a.times, 99))}, ${cpuPerRequest(a).toFixed(0)} µs | ${(rate(a) / rate(b)).toFixed(2)}, ${(cpuPerRequest(b) / cpuPerRequest(a)).toFixed(2)}`,
    );
  }
}

function targetOf(bench: BenchServer): Target {
  return {
    url: bench.server.url,
    apiKey: bench.secretKey,
    experiment: [bench.experimentId, 'bench'],
    pid: bench.server.child.pid,
    idleCpu: 0,
  };
}

/** The median of the per-round req/s ratios: a burst of other load falls in one round only. */
function medianRoundRatio(arbRuns: Run[], refRuns: Run[]): number {
  const ratios = arbRuns.map((run, i) => rate(run) / rate(refRuns[i] as Run)).sort((a, b) => a - b);
  const mid = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1
    ? (ratios[mid] as number)
    : ((ratios[mid - 1] as number) + (ratios[mid] as number)) / 2;
}

/** The reference build beside this one: req/s, p50 and p99 ratios, and the goal. */
function compareWithReference(arbRuns: Run[], refRuns: Run[]): void {
  const arbRun = combine(arbRuns);
  const refRun = combine(refRuns);
  console.log(
    `this build / reference, req/s per round: ${arbRuns.map((r, i) => (rate(r) / rate(refRuns[i] as Run)).toFixed(3)).join(', ')}; median ${medianRoundRatio(arbRuns, refRuns).toFixed(3)}`,
  );
  const ratio = rate(arbRun) / rate(refRun);
  const p50 = percentile(arbRun.times, 50) / percentile(refRun.times, 50);
  const p99 = percentile(arbRun.times, 99) / percentile(refRun.times, 99);
  console.log(
    `this build / reference: req/s ${ratio.toFixed(3)}, p50 ${p50.toFixed(3)}, p99 ${p99.toFixed(3)}, server CPU per request ${(cpuPerRequest(arbRun) / cpuPerRequest(refRun)).toFixed(3)}  goal req/s >= ${GOAL_REFERENCE_RATIO}: ${ratio >= GOAL_REFERENCE_RATIO ? 'met' : 'NOT met'}`,
  );
}

async function main() {
  const db = await freshPostgres();
  const bench = await startBenchServer(db.url, NO_TRACES);
  const refDb = REFERENCE_BIN === '' ? null : await freshPostgres();
  const refBench =
    refDb === null ? null : await startBenchServer(refDb.url, NO_TRACES, REFERENCE_BIN);
  const baseline = await startBaseline();
  try {
    const arbiter = targetOf(bench);
    const reference = refBench === null ? null : targetOf(refBench);
    const base: Target = {
      url: baseline.url,
      apiKey: 'none',
      experiment: ['x'],
      pid: baseline.child.pid,
      idleCpu: 0,
    };
    // One real answer first: the route works and the experiment enrols users.
    const probe = await fetch(`${bench.server.url}/v1/assign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': bench.secretKey },
      body: JSON.stringify({ experiment_id: bench.experimentId, user_id: 'user-1' }),
    });
    const answer = (await probe.json()) as { variant?: unknown };
    if (probe.status !== 200 || typeof answer.variant !== 'string') {
      throw new Error(`assign probe: ${probe.status} ${JSON.stringify(answer)}`);
    }

    const targets = reference === null ? [arbiter, base] : [arbiter, reference, base];
    for (const target of targets) target.idleCpu = await idleCpuOf(target.pid);
    console.log(
      `idle CPU taken out of each run: arbiter ${(arbiter.idleCpu * 1e3).toFixed(1)} ms/s, baseline ${(base.idleCpu * 1e3).toFixed(1)} ms/s`,
    );
    // Warm-up (JIT, keep-alive sockets, caches), then the measured runs, baseline first.
    if (WARMUP > 0) {
      check('warm-up baseline', await load(base, WARMUP));
      check('warm-up arbiter', await load(arbiter, WARMUP));
      if (reference !== null) check('warm-up reference', await load(reference, WARMUP));
    }
    const baseRuns: Run[] = [];
    const arbRuns: Run[] = [];
    const refRuns: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      baseRuns.push(await load(base, DURATION / ROUNDS));
      // The two builds swap places each round, so neither always follows the baseline.
      if (reference !== null && round % 2 === 1)
        refRuns.push(await load(reference, DURATION / ROUNDS));
      arbRuns.push(await load(arbiter, DURATION / ROUNDS));
      if (reference !== null && round % 2 === 0)
        refRuns.push(await load(reference, DURATION / ROUNDS));
    }
    const baseRun = combine(baseRuns);
    const arbRun = combine(arbRuns);
    const refRun = reference === null ? null : combine(refRuns);
    if (refRun !== null) check('reference', refRun);
    check('baseline', baseRun);
    check('arbiter', arbRun);

    const ratio = rate(arbRun) / rate(baseRun);
    console.log(
      `POST /v1/assign, ${CONNECTIONS} keep-alive connections, pipelining 1, ${DURATION} s each in ${ROUNDS} alternating rounds after ${WARMUP} s warm-up; Arbiter on PostgreSQL`,
    );
    const rows: Array<readonly [string, Run, Run[]]> = [
      ['bare Fastify (baseline)', baseRun, baseRuns],
      ['arbiter serve /v1/assign', arbRun, arbRuns],
    ];
    if (refRun !== null) rows.push(['reference build /v1/assign', refRun, refRuns]);
    for (const [label, run, rounds] of rows) {
      const t = run.times;
      const perRound = rounds.map((r) => Math.round(rate(r))).join(', ');
      console.log(
        `${label.padEnd(26)} ${Math.round(rate(run)).toString().padStart(6)} req/s   p50 ${ms(percentile(t, 50))}   p90 ${ms(percentile(t, 90))}   p99 ${ms(percentile(t, 99))}   max ${ms(percentile(t, 100))}   server CPU ${cpuPerRequest(run).toFixed(0)} µs/req   (${run.result['2xx']} requests; per round ${perRound} req/s)`,
      );
    }
    const arbP99 = percentile(arbRun.times, 99);
    const ratioOk = ratio >= GOAL_RATIO;
    const p99Ok = arbP99 <= GOAL_P99_MS;
    console.log(
      `ratio (arbiter / baseline req/s): ${ratio.toFixed(2)}  goal >= ${GOAL_RATIO}: ${ratioOk ? 'met' : 'NOT met'}`,
    );
    const cpuRatio = cpuPerRequest(baseRun) / cpuPerRequest(arbRun);
    console.log(
      `ratio of server CPU per request (baseline / arbiter): ${cpuRatio.toFixed(2)}  goal >= ${GOAL_CPU_RATIO}: ${cpuRatio >= GOAL_CPU_RATIO ? 'met' : 'NOT met'}`,
    );
    console.log(
      `arbiter p99: ${ms(arbP99)}  goal <= ${GOAL_P99_MS} ms: ${p99Ok ? 'met' : 'NOT met'}`,
    );
    if (refRun !== null) compareWithReference(arbRuns, refRuns);
    if (SCALE_SECONDS > 0) await scaleCurve(base, arbiter);
  } finally {
    await baseline.stop();
    await bench.stop();
    await refBench?.stop();
    await db.drop();
    await refDb?.drop();
  }
}

await main();

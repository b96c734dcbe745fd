/**
 * OFREP's single-flag route against POST /v1/assign, on one `arbiter serve` in one run:
 * requests per second of `POST /ofrep/v1/evaluate/flags/{key}` over those of `POST /v1/assign`,
 * the same experiment and users on both. Goal: ratio >= 0.9.
 *
 * Arbiter: `arbiter serve` as its own process on a fresh PostgreSQL database (startBenchServer);
 * rate limits raised there. Load: autocannon in this process, keep-alive, pipelining 1; every
 * request carries another user id of a pool of BENCH_USERS. OFREP records each assigned user's
 * exposure once a day: a warm-up pass evaluates every user of the pool first, so the measured
 * rounds are the steady state of a day (each user exposed already); the first evaluation of a
 * user on a day costs one event of a background append, not measured here.
 *
 * Run: npx tsx bench/ofrep/single-flag.bench.ts
 * The measured time of each route is split into BENCH_ROUNDS alternating rounds (assign, OFREP,
 * assign, ...), so that load from other work on a shared machine falls on both.
 * Env: BENCH_CONNECTIONS (10), BENCH_DURATION seconds per route (10), BENCH_ROUNDS (4),
 * BENCH_USERS (20000).
 */
import { componentCpuSeconds } from '../scale-out/process-cpu.ts';
import { type AutocannonRequest, type AutocannonResult, autocannon } from '../server/autocannon.ts';
import { type BenchServer, onBenchServer } from '../server/setup.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const USERS = Number(process.env.BENCH_USERS ?? 20_000);
const GOAL_RATIO = 0.9;

type Route = 'assign' | 'ofrep';

/** One route's request for the n-th call: the same experiment and user pool on both. */
function requestOf(route: Route, bench: BenchServer, n: number): AutocannonRequest {
  const user = `user-${(n * 7919) % USERS}`;
  if (route === 'assign')
    return {
      path: '/v1/assign',
      body: JSON.stringify({ experiment_id: bench.experimentId, user_id: user }),
    };
  return {
    path: '/ofrep/v1/evaluate/flags/bench',
    body: JSON.stringify({ context: { targetingKey: user } }),
  };
}

async function load(
  route: Route,
  bench: BenchServer,
  limit: { seconds?: number; amount?: number },
) {
  let n = 0;
  const result = await autocannon({
    url: bench.server.url,
    connections: CONNECTIONS,
    ...(limit.amount === undefined ? { duration: limit.seconds } : { amount: limit.amount }),
    pipelining: 1,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': bench.secretKey },
    requests: [
      {
        setupRequest(request) {
          n++;
          return { ...request, ...requestOf(route, bench, n) };
        },
      },
    ],
  });
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0 || result['2xx'] === 0)
    throw new Error(
      `${route}: ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors`,
    );
  return result;
}

const rate = (r: AutocannonResult) => r['2xx'] / r.duration;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2
  );
};

/**
 * A measured round of one route: its req/s, and the server's CPU µs per answered request (the
 * server process's utime + stime from /proc), which the load generator sharing the cores does
 * not bend.
 */
async function round(route: Route, bench: BenchServer) {
  const pid = bench.server.child.pid as number;
  const before = componentCpuSeconds({ server: [pid] }).server as number;
  const result = await load(route, bench, { seconds: DURATION / ROUNDS });
  const cpu = (componentCpuSeconds({ server: [pid] }).server as number) - before;
  return { rate: rate(result), cpuPerRequest: (cpu * 1e6) / result['2xx'] };
}

await onBenchServer({}, async (bench) => {
  console.log(
    `connections ${CONNECTIONS}, ${ROUNDS} rounds of ${DURATION / ROUNDS} s per route, ${USERS} users`,
  );
  // Every user evaluated once (exposures recorded), then both routes warmed.
  await load('ofrep', bench, { amount: USERS });
  await load('assign', bench, { seconds: 3 });
  await load('ofrep', bench, { seconds: 3 });
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  let assignTotal = 0;
  let ofrepTotal = 0;
  for (let n = 0; n < ROUNDS; n++) {
    const assign = await round('assign', bench);
    const ofrep = await round('ofrep', bench);
    assignTotal += assign.rate;
    ofrepTotal += ofrep.rate;
    ratios.push(ofrep.rate / assign.rate);
    cpuRatios.push(ofrep.cpuPerRequest / assign.cpuPerRequest);
    console.log(
      `round ${n + 1}: assign ${Math.round(assign.rate)} req/s (server ${assign.cpuPerRequest.toFixed(1)} µs CPU a request), OFREP ${Math.round(ofrep.rate)} req/s (${ofrep.cpuPerRequest.toFixed(1)} µs), ratio ${(ofrep.rate / assign.rate).toFixed(3)}`,
    );
  }
  const ratio = median(ratios);
  console.log(
    `assign ${Math.round(assignTotal / ROUNDS)} req/s, OFREP single flag ${Math.round(ofrepTotal / ROUNDS)} req/s`,
  );
  console.log(
    `server CPU a request, OFREP / assign: median of rounds ${median(cpuRatios).toFixed(3)}`,
  );
  console.log(
    `ratio OFREP / assign: median of rounds ${ratio.toFixed(3)} (goal >= ${GOAL_RATIO}): ${ratio >= GOAL_RATIO ? 'met' : 'NOT met'}`,
  );
});

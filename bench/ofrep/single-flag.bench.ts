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
// @ts-expect-error autocannon ships no type declarations; the shape used is typed below.
import autocannonUntyped from 'autocannon';
import { type BenchServer, onBenchServer } from '../server/setup.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const USERS = Number(process.env.BENCH_USERS ?? 20_000);
const GOAL_RATIO = 0.9;

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
interface AutocannonRequest {
  path?: string;
  body?: string;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  pipelining: number;
  method: string;
  headers: Record<string, string>;
  requests: Array<{ setupRequest(request: AutocannonRequest): AutocannonRequest }>;
}
const autocannon = autocannonUntyped as (
  options: AutocannonOptions,
) => PromiseLike<AutocannonResult>;

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

await onBenchServer({}, async (bench) => {
  console.log(
    `connections ${CONNECTIONS}, ${ROUNDS} rounds of ${DURATION / ROUNDS} s per route, ${USERS} users`,
  );
  // Every user evaluated once (exposures recorded), then both routes warmed.
  await load('ofrep', bench, { amount: USERS });
  await load('assign', bench, { seconds: 3 });
  await load('ofrep', bench, { seconds: 3 });
  const ratios: number[] = [];
  let assignTotal = 0;
  let ofrepTotal = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const assign = rate(await load('assign', bench, { seconds: DURATION / ROUNDS }));
    const ofrep = rate(await load('ofrep', bench, { seconds: DURATION / ROUNDS }));
    assignTotal += assign;
    ofrepTotal += ofrep;
    ratios.push(ofrep / assign);
    console.log(
      `round ${round + 1}: assign ${Math.round(assign)} req/s, OFREP ${Math.round(ofrep)} req/s, ratio ${(ofrep / assign).toFixed(3)}`,
    );
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const median =
    (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) /
    2;
  console.log(
    `assign ${Math.round(assignTotal / ROUNDS)} req/s, OFREP single flag ${Math.round(ofrepTotal / ROUNDS)} req/s`,
  );
  console.log(
    `ratio OFREP / assign: median of rounds ${median.toFixed(3)} (goal >= ${GOAL_RATIO}): ${median >= GOAL_RATIO ? 'met' : 'NOT met'}`,
  );
});

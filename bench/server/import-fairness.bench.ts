/**
 * Does one org's bulk import stall another org? Measures the neighbour's
 * `POST /v1/assign` latency twice in one run on one server: with no import running (the
 * baseline), then while BENCH_IMPORTS large CSV imports of another org run at once. Prints
 * both p99s and their ratio. Goal: p99 under 50 ms while the imports run.
 *
 * Arbiter: `arbiter serve` as its own process on a fresh PostgreSQL database
 * (startBenchServer), with enough per-org import concurrency for all imports to run together.
 * Load: BENCH_ASSIGN_LOOPS sequential keep-alive request loops in this process (each sends the
 * next assign when the last answered), a different user every time.
 *
 * Run: npx tsx bench/server/import-fairness.bench.ts
 * Env: BENCH_IMPORTS (4), BENCH_ROWS per import (100000, 7.5 MB of CSV; 27000 is 2 MB), BENCH_ASSIGN_LOOPS
 * (2), BENCH_BASELINE_SECONDS (5), BENCH_ARBITER_BIN (another build's `arbiter`, to compare).
 * BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.
 */
import { performance } from 'node:perf_hooks';
import { businessEventsCsv, experimentConfig } from '../../apps/server/test/support/builders.ts';
import { runCli } from '../../apps/server/test/support/process.ts';
import { freshPostgres, startBenchServer } from './setup.ts';

const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 4);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const LOOPS = Number(process.env.BENCH_ASSIGN_LOOPS ?? 2);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 5);
const GOAL_P99_MS = 50;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Sequential assign loops until `until()` says stop; every answer's time in ms, sorted. */
async function assignLoad(
  url: string,
  key: string,
  experiment: string,
  until: () => boolean,
): Promise<Float64Array> {
  const times: number[] = [];
  let user = 0;
  const loop = async () => {
    while (!until()) {
      const started = performance.now();
      const res = await fetch(`${url}/v1/assign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ experiment_id: experiment, user_id: `n-${user++}` }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`assign answered ${res.status}`);
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, loop));
  return Float64Array.from(times).sort();
}

const bigCsv = (tag: string) => businessEventsCsv(tag, ROWS);

/** A second org, beside the bench server's own: its experiment and secret key. */
async function importerOrg(url: string, env: Record<string, string>): Promise<string> {
  const token = runCli(
    ['token', '--email', 'importer@example.com', '--org', 'importer', '--role', 'admin'],
    env,
  ).stdout;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = await fetch(`${url}/v1/experiments`, {
    method: 'POST',
    headers,
    body: JSON.stringify(experimentConfig({ name: 'bulk', metrics: [] })),
  });
  if (created.status !== 201) throw new Error(`experiment: ${await created.text()}`);
  const key = await fetch(`${url}/v1/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ scope: 'secret' }),
  });
  return ((await key.json()) as { key: string }).key;
}

const line = (label: string, t: Float64Array) =>
  `${label.padEnd(34)} ${String(t.length).padStart(6)} assigns   p50 ${percentile(t, 50).toFixed(2)} ms   p99 ${percentile(t, 99).toFixed(2)} ms   max ${percentile(t, 100).toFixed(2)} ms`;

async function main() {
  const db = await freshPostgres();
  const extraEnv = { ARBITER_IMPORT_CONCURRENCY_PER_ORG: String(IMPORTS) };
  const bench = await startBenchServer(db.url, extraEnv, process.env.BENCH_ARBITER_BIN);
  try {
    const url = bench.server.url;
    const importerKey = await importerOrg(url, bench.env);
    const payloads = Array.from({ length: IMPORTS }, (_, i) => bigCsv(`imp-${i}`));
    const bytes = payloads.reduce((n, p) => n + Buffer.byteLength(p), 0);
    // Warm-up: keys and configs cached, JIT warm.
    const warmUntil = performance.now() + 1000;
    await assignLoad(url, bench.secretKey, 'bench', () => performance.now() > warmUntil);

    const baselineUntil = performance.now() + BASELINE_SECONDS * 1000;
    const idle = await assignLoad(
      url,
      bench.secretKey,
      'bench',
      () => performance.now() > baselineUntil,
    );

    let running = IMPORTS;
    const started = performance.now();
    const imports = payloads.map(async (payload) => {
      const res = await fetch(`${url}/v1/events/import`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'x-api-key': importerKey },
        body: payload,
      });
      const body = (await res.json()) as { events?: number; errors?: unknown[] };
      running--;
      if (res.status !== 200 || body.events !== ROWS) {
        throw new Error(`import answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      }
      return performance.now() - started;
    });
    const busy = await assignLoad(url, bench.secretKey, 'bench', () => running === 0);
    const importTimes = await Promise.all(imports);

    console.log(
      `${IMPORTS} imports of ${ROWS} CSV rows (${(bytes / IMPORTS / 1e6).toFixed(1)} MB each) by one org; the other org's POST /v1/assign from ${LOOPS} sequential keep-alive loops; Arbiter on PostgreSQL`,
    );
    console.log(line('assign, no import running', idle));
    console.log(line(`assign, ${IMPORTS} imports running`, busy));
    console.log(
      `imports answered after ${importTimes.map((t) => (t / 1000).toFixed(1)).join(', ')} s`,
    );
    const p99 = percentile(busy, 99);
    console.log(
      `ratio of p99 (during imports / no import): ${(p99 / percentile(idle, 99)).toFixed(2)}`,
    );
    console.log(
      `assign p99 during imports: ${p99.toFixed(2)} ms  goal < ${GOAL_P99_MS} ms: ${p99 < GOAL_P99_MS ? 'met' : 'NOT met'}`,
    );
  } catch (error) {
    console.error(`server output:\n${bench.server.output().slice(-3000)}`);
    throw error;
  } finally {
    await bench.stop();
    await db.drop();
  }
}

await main();

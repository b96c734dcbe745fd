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
import { businessEventsCsv } from '../../apps/server/test/support/builders.ts';
import { assignLoad, besideSecondOrg, latencyLine, percentile } from './neighbour.ts';
import { onBenchServer } from './setup.ts';

const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 4);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const LOOPS = Number(process.env.BENCH_ASSIGN_LOOPS ?? 2);
const BASELINE_SECONDS = Number(process.env.BENCH_BASELINE_SECONDS ?? 5);
const GOAL_P99_MS = 50;

const bigCsv = (tag: string) => businessEventsCsv(tag, ROWS);

const line = (label: string, t: Float64Array) => latencyLine(label, t, 34);

const extraEnv = { ARBITER_IMPORT_CONCURRENCY_PER_ORG: String(IMPORTS) };
await onBenchServer(
  extraEnv,
  async (bench) => {
    const url = bench.server.url;
    const payloads = Array.from({ length: IMPORTS }, (_, i) => bigCsv(`imp-${i}`));
    const bytes = payloads.reduce((n, p) => n + Buffer.byteLength(p), 0);
    const importer = { name: 'importer', experiment: 'bulk', scope: 'secret' } as const;
    const side = await besideSecondOrg(bench, LOOPS, BASELINE_SECONDS, importer);
    const { key: importerKey, neighbour, idle } = side;

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
    const busy = await assignLoad(neighbour, () => running === 0);
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
  },
  process.env.BENCH_ARBITER_BIN,
);

/**
 * Offline evaluation at size: BENCH_ITEMS (10,000) items × 10 variants × 10 repeats = 1,000,000
 * results through POST /v1/offline-runs/{id}/results in batches of 500 on PostgreSQL, against
 * the floor: a bare COPY of the same rows (the same column values, fingerprint included), 500
 * to a statement, each its own transaction, into a copy of `offline_results` with the same
 * keys, measured in the same run. Then POST /v1/offline-runs/{id}/complete at that size (one
 * `exact_match` scorer and the measured latency, tokens and error rate), and the server's peak
 * resident memory (VmHWM) over the whole run.
 *
 *   npx tsx bench/server/offline-results.bench.ts
 *   # knobs: BENCH_ITEMS (10000) BENCH_SENDERS (4)
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import pg from 'pg';
import { canonical } from '../../apps/server/src/domain/offline-runs/results.ts';
import { bareCopy, connectClients } from './bare-copy.ts';
import { cpuSecondsBetween, cpuSecondsOf, databaseCpuSeconds, onBenchServer } from './setup.ts';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const VARIANTS = Array.from({ length: 10 }, (_, v) => (v === 0 ? 'control' : `v${v}`));
const REPEATS = 10;
const PER_BATCH = 500;
const SENDERS = Number(process.env.BENCH_SENDERS ?? 4);
const TOTAL = ITEMS * VARIANTS.length * REPEATS;

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
function post(url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const itemId = (i: number) => `item-${String(i).padStart(5, '0')}`;

/** The n-th result, in upload order: by item, then variant, then repeat (as a client runs them). */
function result(n: number) {
  const repeat = n % REPEATS;
  const v = Math.floor(n / REPEATS) % VARIANTS.length;
  const i = Math.floor(n / (REPEATS * VARIANTS.length));
  const right = (i * 7 + v * 3 + repeat) % 10 < 6 + (v % 3);
  return {
    item_id: itemId(i),
    variant: VARIANTS[v] as string,
    repeat,
    output: right ? `answer ${i}` : `not sure about ${i}`,
    latency_ms: 400 + ((i * 13 + v * 31 + repeat * 7) % 600),
    input_tokens: 300 + (i % 50),
    output_tokens: 40 + ((v * 11 + repeat) % 30),
    model: 'gpt-4o-mini',
  };
}

function batchRows(b: number) {
  return Array.from({ length: PER_BATCH }, (_, k) => result(b * PER_BATCH + k));
}

/** The same rows as the API stores them, in COPY text format (none holds a tab or backslash). */
function copyRows(runId: string, b: number): string {
  let out = '';
  for (const r of batchRows(b)) {
    out += `${runId}\t${r.item_id}\t${r.variant}\t${r.repeat}\t${JSON.stringify(r.output)}\t\\N\t${r.latency_ms}\t${r.input_tokens}\t${r.output_tokens}\t\\N\t${r.model}\t{}\t${canonical(r)}\n`;
  }
  return out;
}
const COPY_FLOOR =
  'copy offline_results_floor (run_id, item_id, variant, repeat, output, error, latency_ms, input_tokens, output_tokens, cost, model, scores, fingerprint) from stdin';

async function pool(batches: number, work: (b: number, sender: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, sender) => {
      while (next < batches) await work(next++, sender);
    }),
  );
}

function peakRssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

async function setUp(url: string, session: Record<string, string>) {
  const call = async (path: string, body: unknown, expected: number) => {
    const res = await post(`${url}${path}`, session, JSON.stringify(body));
    if (res.status !== expected) throw new Error(`${path}: ${res.status} ${res.body}`);
    return JSON.parse(res.body);
  };
  const experiment = await call(
    '/v1/experiments',
    {
      name: 'offline-bench',
      salt: 'offline-bench',
      bucket_count: 10_000,
      allocation: VARIANTS.map((variant) => ({ variant, weight: 10 })),
      variants: VARIANTS.map((key) => ({ key, prompt: `Prompt ${key}` })),
      metrics: [],
    },
    201,
  );
  const dataset = await call('/v1/datasets', { name: 'offline-bench' }, 201);
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    id: itemId(i),
    input: `question ${i}`,
    expected_output: `answer ${i}`,
  }));
  const uploaded = await call(`/v1/datasets/${dataset.id}/items`, { items }, 200);
  if (uploaded.errors.length > 0) throw new Error(JSON.stringify(uploaded.errors.slice(0, 3)));
  const run = await call(
    `/v1/experiments/${experiment.id}/offline-runs`,
    { dataset_id: dataset.id, repeats: REPEATS, scorers: [{ name: 'exact', kind: 'exact_match' }] },
    201,
  );
  if (run.expected_results !== TOTAL) throw new Error(`expected ${run.expected_results}`);
  return run.id as string;
}

async function main() {
  const load = loadavg();
  await onBenchServer({}, async (bench, databaseUrl) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const url = bench.server.url;
      const runId = await setUp(url, bench.session);
      const batches = TOTAL / PER_BATCH;
      const key = { 'x-api-key': bench.secretKey };
      const serverCpu0 = cpuSecondsOf(bench.server.child.pid);
      const pgCpu0 = await databaseCpuSeconds(client);
      const apiStart = performance.now();
      await pool(batches, async (b) => {
        const res = await post(
          `${url}/v1/offline-runs/${runId}/results`,
          key,
          JSON.stringify({ results: batchRows(b) }),
        );
        if (res.status !== 200) throw new Error(`results: ${res.status} ${res.body}`);
        const answer = JSON.parse(res.body);
        if (answer.accepted !== PER_BATCH) throw new Error(`results: ${res.body.slice(0, 300)}`);
      });
      const apiSeconds = (performance.now() - apiStart) / 1000;
      const apiCpu = {
        server: cpuSecondsOf(bench.server.child.pid) - serverCpu0,
        postgres: cpuSecondsBetween(pgCpu0, await databaseCpuSeconds(client)),
      };
      console.log(`upload done: ${apiSeconds.toFixed(1)} s`);

      await client.query('create table offline_results_floor (like offline_results including all)');
      const conns = await connectClients(databaseUrl, SENDERS);
      const floorPg0 = await databaseCpuSeconds(client);
      const floorStart = performance.now();
      await pool(batches, async (b, sender) => {
        await bareCopy(conns[sender] as pg.Client, COPY_FLOOR, copyRows(runId, b));
      });
      const floorSeconds = (performance.now() - floorStart) / 1000;
      const floorPgCpu = cpuSecondsBetween(floorPg0, await databaseCpuSeconds(client));
      await Promise.all(conns.map((c) => c.end()));
      const floorCount = (
        await client.query('select count(*)::int as n from offline_results_floor')
      ).rows[0].n;
      if (floorCount !== TOTAL) throw new Error(`floor holds ${floorCount}`);

      console.log(`floor done: ${floorSeconds.toFixed(1)} s`);
      const completeCpu0 = {
        server: cpuSecondsOf(bench.server.child.pid),
        postgres: await databaseCpuSeconds(client),
      };
      const completeStart = performance.now();
      const answer = await post(`${url}/v1/offline-runs/${runId}/complete`, key, '{}');
      const answeredSeconds = (performance.now() - completeStart) / 1000;
      if (answer.status !== 200)
        throw new Error(`complete: ${answer.status} ${answer.body.slice(0, 500)}`);
      console.log(
        `complete answered ${JSON.parse(answer.body).status} after ${answeredSeconds.toFixed(1)} s`,
      );
      // A run that outlasts the answer's wait finishes in the background: read it until it ends.
      let run = JSON.parse(answer.body);
      while (run.status === 'scoring') {
        await new Promise((r) => setTimeout(r, 100));
        const res = await fetch(`${url}/v1/offline-runs/${runId}`, { headers: key });
        run = await res.json();
      }
      const completeSeconds = (performance.now() - completeStart) / 1000;
      const completeCpu = {
        server: cpuSecondsOf(bench.server.child.pid) - completeCpu0.server,
        postgres: cpuSecondsBetween(completeCpu0.postgres, await databaseCpuSeconds(client)),
      };
      if (run.status !== 'complete')
        throw new Error(`complete: ${JSON.stringify(run).slice(0, 500)}`);
      if (run.coverage.received_results !== TOTAL) throw new Error('not every result was stored');
      const scores = (await client.query('select count(*)::int as n from offline_scores')).rows[0]
        .n;

      const apiRate = TOTAL / apiSeconds;
      const floorRate = TOTAL / floorSeconds;
      console.log(
        `load average before: ${load.map((l) => l.toFixed(2)).join(' ')}; after: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
      console.log(
        `results: ${TOTAL} (${ITEMS} items × ${VARIANTS.length} variants × ${REPEATS} repeats), ${PER_BATCH} a request, ${SENDERS} senders, PostgreSQL`,
      );
      console.log(
        `POST results:      ${apiSeconds.toFixed(1)} s, ${Math.round(apiRate).toLocaleString('en-US')} results/s`,
      );
      console.log(
        `floor (bare COPY): ${floorSeconds.toFixed(1)} s, ${Math.round(floorRate).toLocaleString('en-US')} results/s`,
      );
      console.log(`ratio: ${(apiRate / floorRate).toFixed(2)}  (goal >= 0.5)`);
      console.log(
        `complete: ${completeSeconds.toFixed(1)} s  (goal < 10 s); ${scores} scores stored, ${Object.keys(run.comparisons).length} comparisons`,
      );
      console.log(
        `CPU s, upload (server / PostgreSQL): ${apiCpu.server.toFixed(1)} / ${apiCpu.postgres.toFixed(1)}; floor (PostgreSQL): ${floorPgCpu.toFixed(1)}; complete (server / PostgreSQL): ${completeCpu.server.toFixed(1)} / ${completeCpu.postgres.toFixed(1)}`,
      );
      console.log(`server peak RSS (VmHWM): ${peakRssMiB(bench.server.child.pid).toFixed(0)} MiB`);
    } finally {
      await client.end();
    }
  });
}

await main();

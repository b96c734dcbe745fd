/**
 * Benchmark (a) of issue 3: events accepted and drained per second through POST /v1/events in
 * batches of 100 on PostgreSQL, against a plain multi-row INSERT of the same rows into the same
 * database, measured in one run. Run: npx tsx bench/server/ingest-throughput.bench.ts
 */
import { Agent, request } from 'node:http';
import pg from 'pg';
import { modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { cpuSecondsOf, freshPostgres, postgresCpuSeconds, startBenchServer } from './setup.ts';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 400_000);
const PER_BATCH = 100;
const CONCURRENCY = 8;

/** A lean keep-alive sender: fetch costs the client more CPU than the server spends. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
function post(url: string, key: string, body: string): Promise<number> {
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

function batch(experimentId: string, b: number, prefix: string) {
  return modelCallsForUsers(experimentId, PER_BATCH, {
    prefix: `${prefix}-${b}`,
    userOf: (i) => `user-${(b * PER_BATCH + i) % 50_000}`,
  });
}

/** `n` senders share the batches; `work` gets the batch number and the sender's index. */
async function pool<T>(n: number, work: (i: number, sender: number) => Promise<T>): Promise<void> {
  let next = 0;
  const batches = TOTAL / PER_BATCH;
  await Promise.all(
    Array.from({ length: n }, async (_, sender) => {
      while (next < batches) await work(next++, sender);
    }),
  );
}

async function main() {
  const db = await freshPostgres();
  const bench = await startBenchServer(db.url);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    // warm-up: JIT and connection pools
    await fetch(`${bench.server.url}/v1/events`, {
      method: 'POST',
      headers: { 'x-api-key': bench.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify({ events: batch(bench.experimentId, 0, 'warm') }),
    });

    const cpu = () => ({
      server: cpuSecondsOf(bench.server.child.pid),
      postgres: postgresCpuSeconds(),
      sender: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
    });
    const cpuStart = cpu();
    const started = performance.now();
    await pool(CONCURRENCY, async (b) => {
      const status = await post(
        `${bench.server.url}/v1/events`,
        bench.secretKey,
        JSON.stringify({ events: batch(bench.experimentId, b, 'api') }),
      );
      if (status !== 202) throw new Error(`status ${status}`);
    });
    const accepted = performance.now();
    for (;;) {
      // stored at acceptance; drained once the aggregates hold every stored event
      const { rows } = await client.query(
        'select count(*)::int as n from events where txid >= (select folded_below from ingest_watermark)',
      );
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const drained = performance.now();
    const cpuApi = cpu();
    // each fold moves the watermark once: how finely the worker sliced the stream
    const folds = Number(
      (
        await client.query(
          "select n_tup_upd from pg_stat_user_tables where relname = 'ingest_watermark'",
        )
      ).rows[0]?.n_tup_upd ?? 0,
    );

    // Baseline: the same rows, multi-row INSERT of 100 into a copy of the events table.
    await client.query('create table events_baseline (like events including all)');
    const conns = await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        return c;
      }),
    );
    const orgId = (await client.query('select id from orgs limit 1')).rows[0].id;
    const cpuBase = cpu();
    const baseStart = performance.now();
    // each sender has its own connection, as each API sender has its own keep-alive socket
    await pool(CONCURRENCY, async (b, sender) => {
      const c = conns[sender] as pg.Client;
      const rows = batch(bench.experimentId, b, 'base');
      const values: unknown[] = [];
      const tuples = rows.map((e, i) => {
        values.push(
          orgId,
          e.event_id,
          e.type,
          e.experiment_id,
          e.user_id,
          'control',
          e.timestamp,
          e.timestamp,
          e.latency_ms,
          e.input_tokens,
          e.output_tokens,
          e.model,
        );
        const o = i * 12;
        return `(${Array.from({ length: 12 }, (_, k) => `$${o + k + 1}`).join(',')})`;
      });
      await c.query(
        `insert into events_baseline (org_id, event_id, type, experiment_id, user_id, variant, occurred_at, received_at, latency_ms, input_tokens, output_tokens, model) values ${tuples.join(',')}`,
        values,
      );
    });
    const baseEnd = performance.now();
    const cpuEnd = cpu();
    await Promise.all(conns.map((c) => c.end()));

    const apiRate = TOTAL / ((drained - started) / 1000);
    const acceptRate = TOTAL / ((accepted - started) / 1000);
    const baseRate = TOTAL / ((baseEnd - baseStart) / 1000);
    console.log(
      `events: ${TOTAL} in batches of ${PER_BATCH}, ${CONCURRENCY} concurrent senders, PostgreSQL`,
    );
    console.log(`POST /v1/events accepted (202s):        ${Math.round(acceptRate)} events/s`);
    console.log(`POST /v1/events accepted and drained:   ${Math.round(apiRate)} events/s`);
    console.log(
      `folds by the drain worker:              ${folds} (${Math.round(TOTAL / Math.max(folds, 1))} events each on average)`,
    );
    console.log(`plain multi-row INSERT (baseline):      ${Math.round(baseRate)} events/s`);
    const perEvent = (a: Record<string, number>, b: Record<string, number>, k: string) =>
      ((((b[k] as number) - (a[k] as number)) * 1e6) / TOTAL).toFixed(1);
    console.log(
      `CPU µs per event, API (server / PostgreSQL / sender): ${perEvent(cpuStart, cpuApi, 'server')} / ${perEvent(cpuStart, cpuApi, 'postgres')} / ${perEvent(cpuStart, cpuApi, 'sender')}`,
    );
    console.log(
      `CPU µs per event, baseline (PostgreSQL / sender):     ${perEvent(cpuBase, cpuEnd, 'postgres')} / ${perEvent(cpuBase, cpuEnd, 'sender')}`,
    );
    console.log(
      `ratio (accepted and drained / baseline): ${(apiRate / baseRate).toFixed(2)}  (goal >= 0.5; absolute goal >= 50000 events/s)`,
    );
  } finally {
    await client.end();
    await bench.stop();
    await db.drop();
  }
}

await main();

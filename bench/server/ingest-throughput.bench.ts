/**
 * Events accepted and folded per second through POST /v1/events in batches of 100 on
 * PostgreSQL, against the floor: a bare COPY of the same rows, 100 to a statement (each its own
 * transaction, as each accepted batch is), into a copy of the `events` table with the same
 * indexes, measured in the same run. The scale curve repeats that at 1/16, 1/4 and all of
 * BENCH_EVENTS (default 400,000), each on a fresh database; BENCH_SCALE=0 runs only the last.
 * BENCH_ARBITER_BIN starts another build's `arbiter` instead of this one: a reference measured in
 * the same hour, alternating with this build. BENCH_BATCH (default 100, the clients' batch size)
 * changes the events a request and a floor statement: two sizes split each process's CPU into
 * its part per request and its part per event. BENCH_FLOOR=one-write sends the floor's COPYs as
 * the server does (`CopyInOneWrite`: the query, the rows and their end in one socket write)
 * instead of by pg-copy-streams, as a plain client would.
 *
 *   npx tsx bench/server/ingest-throughput.bench.ts
 */
import pg from 'pg';
import { modelCallsForUsers } from '../../apps/server/test/support/builders.ts';
import { bareCopy, connectClients } from './bare-copy.ts';
import {
  cpuSecondsBetween,
  cpuSecondsOf,
  databaseCpuSeconds,
  freshPostgres,
  postEvents,
  startBenchServer,
} from './setup.ts';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 400_000);
const PER_BATCH = Number(process.env.BENCH_BATCH ?? 100);
const CONCURRENCY = 8;
const FLOOR_IN_ONE_WRITE = process.env.BENCH_FLOOR === 'one-write';

function batch(experimentId: string, b: number, prefix: string) {
  return modelCallsForUsers(experimentId, PER_BATCH, {
    prefix: `${prefix}-${b}`,
    userOf: (i) => `user-${(b * PER_BATCH + i) % 50_000}`,
  });
}

/** `n` senders share the batches; `work` gets the batch number and the sender's index. */
async function pool<T>(
  total: number,
  n: number,
  work: (i: number, sender: number) => Promise<T>,
): Promise<void> {
  let next = 0;
  const batches = total / PER_BATCH;
  await Promise.all(
    Array.from({ length: n }, async (_, sender) => {
      while (next < batches) await work(next++, sender);
    }),
  );
}

/** The baseline's rows in COPY text format: the same 12 columns the API path fills. */
function copyRows(orgId: string, experimentId: string, b: number): string {
  let out = '';
  for (const e of batch(experimentId, b, 'base')) {
    out += `${orgId}\t${e.event_id}\t${e.type}\t${e.experiment_id}\t${e.user_id}\tcontrol\t${e.timestamp}\t${e.timestamp}\t${e.latency_ms}\t${e.input_tokens}\t${e.output_tokens}\t${e.model}\n`;
  }
  return out;
}
const COPY_BASELINE =
  'copy events_floor (org_id, event_id, type, experiment_id, user_id, variant, occurred_at, received_at, latency_ms, input_tokens, output_tokens, model) from stdin';

type Cpu = { server: number; postgres: Map<number, number>; sender: number };
type CpuPerEvent = { server: number; postgres: number; sender: number };
interface Measure {
  total: number;
  acceptRate: number;
  apiRate: number;
  floorRate: number;
  folds: number;
  cpuApi: CpuPerEvent;
  cpuFloor: CpuPerEvent;
}

const diffPerEvent = (a: Cpu, b: Cpu, total: number): CpuPerEvent => ({
  server: ((b.server - a.server) * 1e6) / total,
  postgres: (cpuSecondsBetween(a.postgres, b.postgres) * 1e6) / total,
  sender: ((b.sender - a.sender) * 1e6) / total,
});

/** One fresh database: `total` events through the API, then the same rows by bare COPY. */
async function measure(total: number): Promise<Measure> {
  const db = await freshPostgres();
  const bench = await startBenchServer(db.url, {}, process.env.BENCH_ARBITER_BIN || undefined);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    // warm-up: JIT and connection pools
    await fetch(`${bench.server.url}/v1/events`, {
      method: 'POST',
      headers: { 'x-api-key': bench.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify({ events: batch(bench.experimentId, 0, 'warm') }),
    });
    const cpu = async (): Promise<Cpu> => ({
      server: cpuSecondsOf(bench.server.child.pid),
      postgres: await databaseCpuSeconds(client),
      sender: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
    });
    const cpuStart = await cpu();
    const started = performance.now();
    await pool(total, CONCURRENCY, async (b) => {
      const status = await postEvents(
        `${bench.server.url}/v1/events`,
        bench.secretKey,
        JSON.stringify({ events: batch(bench.experimentId, b, 'api') }),
      );
      if (status !== 202) throw new Error(`status ${status}`);
    });
    const accepted = performance.now();
    for (;;) {
      // stored at acceptance; folded once the aggregates hold every stored event
      const { rows } = await client.query('select count(*)::int as n from ingest_pending');
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const drained = performance.now();
    const cpuApi = await cpu();
    // each acceptance is one row of the fold's queue, deleted by the fold that takes it
    const folds = Number(
      (
        await client.query(
          "select n_tup_del from pg_stat_user_tables where relname = 'ingest_pending'",
        )
      ).rows[0]?.n_tup_del ?? 0,
    );

    // The floor: the same rows by bare COPY into a copy of `events` with the same indexes.
    await client.query('create table events_floor (like events including all)');
    const conns = await connectClients(db.url, CONCURRENCY);
    const orgId = (await client.query('select id from orgs limit 1')).rows[0].id;
    const cpuBase = await cpu();
    const floorStart = performance.now();
    // each sender has its own connection, as each API sender has its own keep-alive socket
    await pool(total, CONCURRENCY, async (b, sender) => {
      const conn = conns[sender] as pg.Client;
      const rows = copyRows(orgId, bench.experimentId, b);
      await bareCopy(conn, COPY_BASELINE, rows, { oneWrite: FLOOR_IN_ONE_WRITE });
    });
    const floorEnd = performance.now();
    const cpuEnd = await cpu();
    await Promise.all(conns.map((c) => c.end()));
    return {
      total,
      acceptRate: total / ((accepted - started) / 1000),
      apiRate: total / ((drained - started) / 1000),
      floorRate: total / ((floorEnd - floorStart) / 1000),
      folds,
      cpuApi: diffPerEvent(cpuStart, cpuApi, total),
      cpuFloor: diffPerEvent(cpuBase, cpuEnd, total),
    };
  } finally {
    await client.end();
    await bench.stop();
    await db.drop();
  }
}

const rate = (n: number) => `${Math.round(n).toLocaleString('en-US')} /s`;
const us = (n: number) => n.toFixed(1);

function report(m: Measure): void {
  console.log(
    `events: ${m.total} in batches of ${PER_BATCH}, ${CONCURRENCY} concurrent senders, PostgreSQL`,
  );
  console.log(`POST /v1/events accepted (202s):        ${rate(m.acceptRate)}`);
  console.log(`POST /v1/events accepted and folded:    ${rate(m.apiRate)}`);
  console.log(
    `acceptances folded by the drain worker: ${m.folds} (${Math.round(m.total / Math.max(m.folds, 1))} events each on average)`,
  );
  console.log(
    `floor: bare COPY${FLOOR_IN_ONE_WRITE ? ' in one write' : ''}, ${PER_BATCH} rows a statement: ${rate(m.floorRate)}`,
  );
  console.log(
    `CPU µs per event, API (server / PostgreSQL / sender): ${us(m.cpuApi.server)} / ${us(m.cpuApi.postgres)} / ${us(m.cpuApi.sender)}`,
  );
  console.log(
    `CPU µs per event, floor (PostgreSQL / sender):        ${us(m.cpuFloor.postgres)} / ${us(m.cpuFloor.sender)}`,
  );
  console.log(
    `ratio (accepted and folded / COPY floor): ${(m.apiRate / m.floorRate).toFixed(2)}  (goal >= 0.5)`,
  );
  // The same ratio by CPU, steadier on a shared machine (PostgreSQL's CPU is that of the bench
  // database's backends and the server-wide writers: other databases' backends stay out).
  const sum = (c: CpuPerEvent) => c.server + c.postgres + c.sender;
  console.log(
    `ratio by CPU per event (floor / API, all processes): ${(sum(m.cpuFloor) / sum(m.cpuApi)).toFixed(2)}`,
  );
}

async function main() {
  // Scale curve: 1x, 4x, 16x the events (the last is BENCH_EVENTS), each on a fresh database.
  const factors = process.env.BENCH_SCALE === '0' ? [16] : [1, 4, 16];
  const measures: Measure[] = [];
  for (const factor of factors) measures.push(await measure((TOTAL / 16) * factor));
  report(measures[measures.length - 1] as Measure);
  console.log(
    '\nscale curve: events | API events/s | floor events/s | ratio | PostgreSQL µs/event API / floor',
  );
  measures.forEach((m, i) => {
    console.log(
      `${String(factors[i]).padStart(3)}x ${String(m.total).padStart(8)} | ${rate(m.apiRate).padStart(10)} | ${rate(m.floorRate).padStart(10)} | ${(m.apiRate / m.floorRate).toFixed(2)} | ${us(m.cpuApi.postgres)} / ${us(m.cpuFloor.postgres)}`,
    );
  });
}

await main();

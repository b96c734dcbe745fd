/**
 * CPU time per accepted-and-folded event, per component, read from the OS (/proc/<pid>/stat,
 * each component's whole process tree): the single node (one `arbiter serve` on PostgreSQL,
 * which accepts and folds) and the Kafka path (API processes with ARBITER_INGEST_WORKER=false,
 * brokers, fold workers, PostgreSQL), each with and without the object store, at batch sizes
 * 1, 10 and 100; the senders' own CPU is not counted. Every component runs in processes of its
 * own, started by the scripts the scale-out suite uses (a PostgreSQL cluster of the run's own,
 * a KRaft cluster, versitygw). CPU per event does not depend on the core count, so the figure
 * holds on a loaded host; each is the median of BENCH_ROUNDS rounds.
 *
 *   npx tsx bench/scale-out/cpu-per-event.bench.ts
 *   knobs: BENCH_EVENTS (20000 a batch size), BENCH_ROUNDS (3), BENCH_BATCHES ("1,10,100"),
 *          BENCH_OBJECT_STORE (both | on | off), BENCH_PROMPT_CHARS (1000), BENCH_RESPONSE_CHARS (300)
 *   the model checked on a configuration it was not measured on (the Kafka path only):
 *   BENCH_CHECK=1 BENCH_APIS=2 BENCH_PARTITIONS=3 BENCH_FOLD_WORKERS=3 BENCH_OBJECT_STORE=off …
 *   BENCH_OUT=FILE saves the rounds as JSON; BENCH_REPORT=FILE prints saved rounds again, against
 *   the constants of today's tree, without measuring.
 *   BENCH_IDLE_SECONDS (5): the quiet before each stretch in which each component's idle CPU is read.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { type BatchSize, MEASURED_RUN } from '../../apps/server/src/cli/capacity-constants.ts';
import {
  modelCpuPerEvent,
  modelIdleMsPerSecond,
  totalOf,
} from '../../apps/server/src/cli/capacity-plan.ts';
import { type Deployment, type Shape, startDeployment } from './deployment.ts';
import {
  bytesUnder,
  type Infrastructure,
  startInfrastructure,
  topicBytes,
} from './infrastructure.ts';
import { bytesPerRow, type Measured, measure, retried } from './measure.ts';
import { peakRssMiB } from './process-cpu.ts';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCHES = (process.env.BENCH_BATCHES ?? '1,10,100').split(',').map(Number) as BatchSize[];
const STORE = process.env.BENCH_OBJECT_STORE ?? 'both';
const CHECK = process.env.BENCH_CHECK === '1';
const OUT = process.env.BENCH_OUT;
const COMPONENTS = ['api', 'brokers', 'fold', 'postgres', 'objectStore'] as const;

const label = (s: Shape) =>
  `${s.kafka ? `Kafka ${s.apis} API/${s.partitions} part/${s.foldWorkers} fold` : 'single node'}${s.objectStore ? ', object store' : ''}`;

function shapes(): Shape[] {
  const stores = STORE === 'both' ? [false, true] : [STORE === 'on'];
  if (CHECK) {
    const apis = Number(process.env.BENCH_APIS ?? 2);
    const partitions = Number(process.env.BENCH_PARTITIONS ?? 3);
    const foldWorkers = Number(process.env.BENCH_FOLD_WORKERS ?? partitions);
    return stores.map((objectStore) => ({
      kafka: true,
      objectStore,
      apis,
      partitions,
      foldWorkers,
    }));
  }
  return stores.flatMap((objectStore) => [
    { kafka: false, objectStore, apis: 1, partitions: 1, foldWorkers: 0 },
    { kafka: true, objectStore, apis: 1, partitions: 1, foldWorkers: 1 },
  ]);
}

interface Footprint {
  bytes: Record<string, number>;
  rssMiB: Record<string, number>;
}
interface Run {
  byBatch: Record<string, Measured>;
  footprint: Footprint;
}
type Rounds = Record<string, { shape: Shape; runs: Run[] }>;

/** One deployment through every batch size, then what its rows and processes weigh. */
async function runShape(shape: Shape, infra: Infrastructure): Promise<Run> {
  const d: Deployment = await startDeployment(shape, infra);
  try {
    const byBatch: Record<string, Measured> = {};
    let events = 0;
    for (const b of BATCHES) {
      byBatch[b] = await measure(d, b, TOTAL);
      events += TOTAL + b;
    }
    const bytes = await bytesPerRow(d.databaseUrl);
    if (d.bucket !== null) bytes.objectStorePerEvent = bytesUnder(d.bucket) / events;
    if (d.topic !== null) bytes.brokerPerEvent = topicBytes(infra, d.topic) / events;
    const rssMiB: Record<string, number> = { api: peakRssMiB(d.roots.api?.[0] ?? 0) };
    if (shape.kafka) {
      rssMiB.fold = peakRssMiB(d.roots.fold?.[0] ?? 0);
      rssMiB.broker = peakRssMiB(infra.brokerPids[0] ?? 0);
    }
    return { byBatch, footprint: { bytes, rssMiB } };
  } finally {
    await d.stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const us = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(1)).padStart(8);
const batchesOf = (rounds: Rounds) =>
  [...new Set(Object.values(rounds).flatMap((r) => r.runs.flatMap((x) => Object.keys(x.byBatch))))]
    .map(Number)
    .sort((a, b) => a - b) as BatchSize[];

/** The median of each figure over the rounds: `field` picks all CPU or the net of idle. */
function medianOf(rounds: Rounds, key: string, b: BatchSize, field: 'perEvent' | 'netPerEvent') {
  const runs = (rounds[key]?.runs ?? []).map((r) => r.byBatch[b]).filter((m) => m !== undefined);
  const of = (pick: (m: Measured) => number | undefined) => {
    const xs = runs.map(pick).filter((x) => x !== undefined) as number[];
    return xs.length === 0 ? undefined : median(xs);
  };
  return {
    perEvent: Object.fromEntries(COMPONENTS.map((c) => [c, of((m) => m[field][c])])),
    idle: Object.fromEntries(COMPONENTS.map((c) => [c, of((m) => m.idle[c])])),
    total: of((m) => (field === 'perEvent' ? m.total : m.netTotal)) ?? Number.NaN,
    rate: of((m) => m.eventsPerSecond) ?? Number.NaN,
  };
}

function printTable(rounds: Rounds, field: 'perEvent' | 'netPerEvent') {
  const what = field === 'perEvent' ? 'all CPU' : 'net of each component’s idle CPU';
  console.log(`\nCPU µs per accepted-and-folded event (${what}), median of the rounds`);
  console.log(
    `${'deployment'.padEnd(44)} batch      API  brokers     fold postgres   object    total   events/s`,
  );
  for (const [key, { shape }] of Object.entries(rounds)) {
    for (const b of batchesOf(rounds)) {
      const m = medianOf(rounds, key, b, field);
      const cells = COMPONENTS.map((c) => us(m.perEvent[c])).join(' ');
      console.log(
        `${label(shape).padEnd(44)} ${String(b).padStart(5)} ${cells} ${us(m.total)} ${String(Math.round(m.rate)).padStart(10)}`,
      );
    }
  }
}

function printIdle(rounds: Rounds) {
  console.log(
    '\nidle CPU, ms a second, all processes of each component (median over rounds and batch sizes):',
  );
  for (const [key, { shape }] of Object.entries(rounds)) {
    const cells = COMPONENTS.map((c) => {
      const xs = batchesOf(rounds).map((b) => medianOf(rounds, key, b, 'perEvent').idle[c]);
      const known = xs.filter((x) => x !== undefined) as number[];
      return known.length === 0 ? undefined : median(known);
    });
    console.log(`${label(shape).padEnd(50)} ${cells.map(us).join(' ')}`);
  }
}

function printRatios(rounds: Rounds) {
  console.log(
    "\nKafka total / single-node total, in this run (median of the rounds' ratios; all CPU, and net of idle):",
  );
  const entries = Object.values(rounds);
  for (const store of [false, true]) {
    const single = entries.find((e) => !e.shape.kafka && e.shape.objectStore === store);
    const kafka = entries.find((e) => e.shape.kafka && e.shape.objectStore === store);
    if (single === undefined || kafka === undefined) continue;
    const ratio = (b: BatchSize, f: 'total' | 'netTotal') =>
      median(
        kafka.runs.map((r, i) => (r.byBatch[b]?.[f] ?? 0) / (single.runs[i]?.byBatch[b]?.[f] ?? 1)),
      );
    const line = batchesOf(rounds).map(
      (b) => `batch ${b}: ${ratio(b, 'total').toFixed(2)} (net ${ratio(b, 'netTotal').toFixed(2)})`,
    );
    console.log(`  ${store ? 'object store' : 'text in the rows'}: ${line.join(', ')}`);
  }
}

/**
 * The model's prediction against what was measured, for each Kafka shape of the run: the net
 * CPU per event by the constants, plus each process's idle CPU (by the constants, times the
 * shape's processes) over the seconds the stretch took.
 */
function printCheck(rounds: Rounds) {
  console.log(`\nthe model (${MEASURED_RUN.commit}) against this run, total CPU µs per event:`);
  for (const [key, { shape }] of Object.entries(rounds)) {
    if (!shape.kafka) continue;
    for (const b of batchesOf(rounds)) {
      const m = medianOf(rounds, key, b, 'perEvent');
      const net = totalOf(modelCpuPerEvent(shape, b));
      const predicted = net + (modelIdleMsPerSecond(shape) * 1000) / m.rate;
      const off = ((m.total - predicted) / predicted) * 100;
      console.log(
        `  ${label(shape).padEnd(44)} batch ${String(b).padStart(3)}: predicted ${us(predicted)} (net ${us(net).trim()})  measured ${us(m.total)} (net ${us(medianOf(rounds, key, b, 'netPerEvent').total).trim()})  ${off >= 0 ? '+' : ''}${off.toFixed(1)} % ${Math.abs(off) <= 20 ? 'within' : 'OUTSIDE'} ±20 %`,
      );
    }
  }
}

function printFootprint(rounds: Rounds) {
  console.log('\nbytes per row or event, and peak memory per process (median of the rounds):');
  for (const { shape, runs } of Object.values(rounds)) {
    const cells = [
      ...Object.keys(runs[0]?.footprint.bytes ?? {}).map(
        (k) => `${k} ${median(runs.map((r) => r.footprint.bytes[k] ?? Number.NaN)).toFixed(0)} B`,
      ),
      ...Object.keys(runs[0]?.footprint.rssMiB ?? {}).map(
        (k) =>
          `${k} ${median(runs.map((r) => r.footprint.rssMiB[k] ?? Number.NaN)).toFixed(0)} MiB`,
      ),
    ];
    console.log(`  ${label(shape).padEnd(44)} ${cells.join(', ')}`);
  }
}

function report(rounds: Rounds) {
  printTable(rounds, 'perEvent');
  printTable(rounds, 'netPerEvent');
  printIdle(rounds);
  printRatios(rounds);
  printCheck(rounds);
  printFootprint(rounds);
}

async function measureAll(): Promise<Rounds> {
  const infra = startInfrastructure(1);
  console.log(
    `events: ${TOTAL} a batch size, batches ${BATCHES.join('/')}, ${ROUNDS} round(s), 8 senders, 1 broker; load average ${loadavg()[0]?.toFixed(2)}`,
  );
  const rounds: Rounds = {};
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const shape of shapes()) {
        const entry = rounds[label(shape)] ?? { shape, runs: [] };
        rounds[label(shape)] = entry;
        const run = await runShape(shape, infra);
        entry.runs.push(run);
        const totals = BATCHES.map((b) => `${b}: ${run.byBatch[b]?.total.toFixed(1)}`);
        console.log(
          `round ${r + 1} ${label(shape)}: total µs per event ${totals.join(', ')}; batches sent again after a 503 so far: ${retried.count}`,
        );
        if (OUT !== undefined) writeFileSync(OUT, JSON.stringify(rounds));
      }
    }
  } finally {
    infra.stop();
  }
  return rounds;
}

// BENCH_REPORT=FILE prints a saved run (BENCH_OUT=FILE saves one) against today's constants.
const saved = process.env.BENCH_REPORT;
report(
  saved === undefined ? await measureAll() : (JSON.parse(readFileSync(saved, 'utf8')) as Rounds),
);
console.log(`\nload average at the end ${loadavg()[0]?.toFixed(2)}`);

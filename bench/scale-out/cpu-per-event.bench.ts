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
 *   the capacity model, in the same rounds: Kafka shapes A/P/W (API processes/partitions/fold
 *   workers) it is fitted on, BENCH_FIT ("2/1/1,1/3/3", besides 1/1/1), and checked on,
 *   BENCH_HELD_OUT ("2/3/3"); the Kafka path on the object store is held out too.
 *   BENCH_OUT=FILE saves the rounds as JSON; BENCH_REPORT=FILE prints saved rounds again without
 *   measuring; BENCH_WRITE=FILE also fits the model on them and writes capacity-constants.ts's
 *   measured region and docs/capacity.md's tables (BENCH_RUN_LOAD: the load average to quote).
 *   BENCH_IDLE_SECONDS (5): the quiet before each stretch in which each component's idle CPU is read.
 *   BENCH_FOLD_METERING (on): the Kafka path's 1/1/1 metered at the fold (ARBITER_KAFKA_METERING=fold)
 *   as well, without the object store; the model is the default metering's and does not use it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { BatchSize, MeasuredRun } from '../../apps/server/src/cli/capacity-constants.ts';
import { modelCpuPerEvent, totalOf } from '../../apps/server/src/cli/capacity-plan.ts';
import { type Deployment, type Shape, startDeployment } from './deployment.ts';
import {
  bytesUnder,
  type Infrastructure,
  startInfrastructure,
  topicBytes,
} from './infrastructure.ts';
import { bytesPerRow, type Measured, measure, retried } from './measure.ts';
import { peakRssMiB } from './process-cpu.ts';
import {
  batchesOf,
  COMPONENTS,
  label,
  measuredFrom,
  median,
  medianOf,
  type Rounds,
  type Run,
  specOf,
} from './rounds.ts';
import { writeConstants } from './write-constants.ts';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCHES = (process.env.BENCH_BATCHES ?? '1,10,100').split(',').map(Number) as BatchSize[];
const STORE = process.env.BENCH_OBJECT_STORE ?? 'both';
const OUT = process.env.BENCH_OUT;
/** Kafka shapes besides 1/1/1 the model's per-process terms are fitted on. */
const FIT = process.env.BENCH_FIT ?? '2/1/1,1/3/3';
/** Kafka shapes the model is checked on, measured in the same rounds and not fitted on. */
const HELD_OUT = process.env.BENCH_HELD_OUT ?? '2/3/3';
const FOLD_METERING = (process.env.BENCH_FOLD_METERING ?? 'on') === 'on';

/** `A/P/W`: A API processes, P partitions, W fold workers (the Kafka path). */
function kafkaShape(spec: string, objectStore: boolean): Shape {
  const [apis, partitions, foldWorkers] = spec.split('/').map(Number);
  if (![apis, partitions, foldWorkers].every((n) => Number.isInteger(n) && (n as number) >= 1))
    throw new Error(`a Kafka shape is A/P/W, e.g. 2/3/3: not ${spec}`);
  return {
    kafka: true,
    objectStore,
    apis: apis as number,
    partitions: partitions as number,
    foldWorkers: foldWorkers as number,
  };
}

/**
 * The run's deployments: the single node and the Kafka path's 1/1/1 with and without the
 * object store, the Kafka shapes the model is fitted on besides 1/1/1 (BENCH_FIT, without the
 * store), and the shapes it is checked on (BENCH_HELD_OUT). The Kafka path on the object store
 * is composed by the model, so it is held out too.
 */
function shapes(): Shape[] {
  const stores = STORE === 'both' ? [false, true] : [STORE === 'on'];
  const list = (v: string) => v.split(',').filter((x) => x !== '');
  const extra = [...list(FIT), ...list(HELD_OUT)].map((spec) => kafkaShape(spec, false));
  const atFold = FOLD_METERING ? [{ ...kafkaShape('1/1/1', false), meteredAtFold: true }] : [];
  return [
    ...stores.flatMap((objectStore) => [
      { kafka: false, objectStore, apis: 1, partitions: 1, foldWorkers: 0 },
      kafkaShape('1/1/1', objectStore),
    ]),
    ...(stores.includes(false) ? [...atFold, ...extra] : []),
  ];
}

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

const us = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(1)).padStart(8);

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
  for (const [store, atFold] of [
    [false, false],
    [true, false],
    [false, true],
  ]) {
    const single = entries.find((e) => !e.shape.kafka && e.shape.objectStore === store);
    const kafka = entries.find(
      (e) =>
        e.shape.kafka &&
        e.shape.objectStore === store &&
        (e.shape.meteredAtFold === true) === atFold &&
        specOf(e.shape) === '1/1/1',
    );
    if (single === undefined || kafka === undefined) continue;
    const ratio = (b: BatchSize, f: 'total' | 'netTotal') =>
      median(
        kafka.runs.map((r, i) => (r.byBatch[b]?.[f] ?? 0) / (single.runs[i]?.byBatch[b]?.[f] ?? 1)),
      );
    const line = batchesOf(rounds).map(
      (b) => `batch ${b}: ${ratio(b, 'total').toFixed(2)} (net ${ratio(b, 'netTotal').toFixed(2)})`,
    );
    const what = `${store ? 'object store' : 'text in the rows'}${atFold ? ', metered at the fold' : ''}`;
    console.log(`  ${what}: ${line.join(', ')}`);
  }
}

/** The Kafka shapes the model is fitted on: 1/1/1 and BENCH_FIT (without the object store). */
const fittedOn = () => ['1/1/1', ...FIT.split(',').filter((x) => x !== '')];

/** What the saved run's command, commit and load were: for the constants' header. */
function runOf(rounds: Rounds): MeasuredRun['run'] {
  const commit = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8' });
  return {
    command:
      process.env.BENCH_RUN_COMMAND ??
      `BENCH_EVENTS=${TOTAL} BENCH_ROUNDS=${ROUNDS} BENCH_BATCHES=${batchesOf(rounds).join(',')} npx tsx bench/scale-out/cpu-per-event.bench.ts`,
    commit: process.env.BENCH_RUN_COMMIT ?? commit.trim(),
    events: TOTAL,
    rounds: Math.max(...Object.values(rounds).map((r) => r.runs.length)),
    loadAverage: process.env.BENCH_RUN_LOAD ?? loadavg()[0]?.toFixed(0) ?? '',
    promptChars: Number(process.env.BENCH_PROMPT_CHARS ?? 1000),
    responseChars: Number(process.env.BENCH_RESPONSE_CHARS ?? 300),
  };
}

/** Each Kafka shape of the run at batch 100: the model's CPU at its measured rate, and what it spent. */
function checks(rounds: Rounds, measured: MeasuredRun) {
  return Object.entries(rounds).flatMap(([key, { shape }]) => {
    // The model is the default metering's: the path metered at the fold is measured, not modelled.
    if (!shape.kafka || shape.meteredAtFold === true) return [];
    if (medianOf(rounds, key, 100, 'perEvent') === undefined) return [];
    const m = medianOf(rounds, key, 100, 'perEvent');
    if (Number.isNaN(m.total)) return [];
    const predicted = totalOf(modelCpuPerEvent(shape, m.rate, measured));
    const fitted = !shape.objectStore && measured.kafka.fittedOn.includes(specOf(shape));
    return [
      {
        shape,
        fitted,
        predicted,
        measured: m.total,
        rate: m.rate,
        off: (m.total - predicted) / predicted,
      },
    ];
  });
}

/**
 * The model fitted on this run's fitted shapes against every Kafka shape of the run, at batch
 * 100 and each shape's measured rate (all CPU): the fitted ones show the fit, the others are
 * held out.
 */
function printCheck(rounds: Rounds) {
  const measured = measuredFrom(rounds, fittedOn(), runOf(rounds));
  console.log(
    `\nthe model fitted on ${measured.kafka.fittedOn.join(', ')} of this run, batch 100, all CPU µs per event:`,
  );
  console.log(`  terms: ${JSON.stringify(measured.kafka)}`);
  for (const c of checks(rounds, measured)) {
    const off = c.off * 100;
    console.log(
      `  ${label(c.shape).padEnd(44)} ${c.fitted ? 'fitted  ' : 'held out'} at ${c.rate.toFixed(0).padStart(5)} events/s: predicted ${us(c.predicted)}  measured ${us(c.measured)}  ${off >= 0 ? '+' : ''}${off.toFixed(1)} % ${Math.abs(off) <= 20 ? 'within' : 'OUTSIDE'} ±20 %`,
    );
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

// BENCH_REPORT=FILE prints a saved run (BENCH_OUT=FILE saves one); BENCH_WRITE=FILE also
// writes the model's constants and docs/capacity.md's tables from it.
const saved = process.env.BENCH_WRITE ?? process.env.BENCH_REPORT;
const rounds =
  saved === undefined ? await measureAll() : (JSON.parse(readFileSync(saved, 'utf8')) as Rounds);
report(rounds);
if (process.env.BENCH_WRITE !== undefined) {
  const measured = measuredFrom(rounds, fittedOn(), runOf(rounds));
  writeConstants(measured, checks(rounds, measured));
}
console.log(`\nload average at the end ${loadavg()[0]?.toFixed(2)}`);

/**
 * CPU per accepted-and-folded event, summed over every component, on the single node and on the
 * Kafka path (`kafka`: de-duplicated and metered at acceptance; `kafka-fold`: at the fold,
 * `ARBITER_KAFKA_METERING=fold`), at batch sizes 1, 10 and 100: a quick measure for making the Kafka path cheaper
 * (bench/scale-out/kafka-path.md has the results). Each component's CPU is read from the OS
 * (/proc/<pid>/stat utime + stime) over the process tree: the API process, the fold worker,
 * the broker's JVM, and the PostgreSQL backends of the bench's database with the server-wide
 * WAL writer, checkpointer and background writer (the bench's own watching connection left
 * out). One warm-up batch is folded first; the reading covers sending the events and waiting
 * until they are stored and folded. The senders (this process) are not counted. The broker's
 * JIT compiler threads are also read on their own: a broker started for the bench is still
 * compiling, which a long-running one paid once.
 *
 *   ARBITER_TEST_DATABASE_URL=postgres://… npx tsx bench/scale-out/kafka-path-cpu.bench.ts
 *   knobs: BENCH_EVENTS (20000 at batch size 100; half at 10, a tenth at 1),
 *          BENCH_BATCHES ("1,10,100"), BENCH_PATHS ("single,kafka,kafka-fold"), BENCH_SERVER_NODE_ARGS
 *          (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", for the API process and the fold worker)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin } from '@platformatic/kafka';
import pg from 'pg';
import { type RunningServer, startServer } from '../../apps/server/test/support/process.ts';
import { runScript } from '../run-script.ts';
import {
  type BenchServer,
  cpuSecondsOf,
  freshPostgres,
  sendModelCalls,
  startBenchServer,
} from '../server/setup.ts';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 20_000);
const BATCHES = (process.env.BENCH_BATCHES ?? '1,10,100').split(',').map(Number);
const PATHS = (process.env.BENCH_PATHS ?? 'single,kafka,kafka-fold').split(',');
const NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** Events sent at a batch size: fewer for small batches, whose requests cost the most. */
const eventsAt = (batch: number) => (batch >= 100 ? TOTAL : batch >= 10 ? TOTAL / 2 : TOTAL / 10);

/** CPU seconds of a process and every descendant alive now. */
function treeCpuSeconds(root: number | undefined): number {
  if (root === undefined) return 0;
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    const seconds = cpuSecondsOf(pid);
    if (Number.isFinite(seconds)) total += seconds;
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

/**
 * CPU seconds of a JVM's JIT compiler threads (`C1/C2 CompilerThread*`) alive now: part of the
 * broker's CPU that a broker started for the bench spends compiling, once. A compiler thread
 * the JVM ends meanwhile takes its seconds with it, so this is a lower bound.
 */
function jitCpuSeconds(pid: number): number {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let total = 0;
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!/^C\d CompilerThre/.test(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

/** PostgreSQL's CPU for the database, by backend (the watching connection left out). */
async function postgresCpu(watch: pg.Client): Promise<Map<number, number>> {
  const { rows } = await watch.query<{ pid: number }>(
    `select pid from pg_stat_activity where (datname = current_database()
       or backend_type in ('walwriter', 'checkpointer', 'background writer'))
       and pid <> pg_backend_pid()`,
  );
  return new Map(rows.map((r) => [r.pid, cpuSecondsOf(r.pid)]));
}

interface Components {
  api: number[];
  fold: number[];
  brokers: number[];
}

type Reading = Record<'api' | 'fold' | 'brokers' | 'postgres', number> & {
  /** Of `brokers`, their JIT compiler threads'. */
  brokersJit: number;
};
interface Measured {
  cpu: Reading;
  seconds: number;
  /** CPU over IDLE_MS after the fold, nothing sent. */
  idle: Reading;
}
const IDLE_MS = 5_000;

async function read(components: Components, watch: pg.Client) {
  const sum = (pids: number[]) => pids.reduce((n, pid) => n + treeCpuSeconds(pid), 0);
  return {
    tree: {
      api: sum(components.api),
      fold: sum(components.fold),
      brokers: sum(components.brokers),
      brokersJit: components.brokers.reduce((n, pid) => n + jitCpuSeconds(pid), 0),
    },
    postgres: await postgresCpu(watch),
  };
}

function between(
  before: Awaited<ReturnType<typeof read>>,
  after: Awaited<ReturnType<typeof read>>,
): Reading {
  let postgres = 0;
  for (const [pid, s] of after.postgres) {
    if (Number.isFinite(s)) postgres += s - (before.postgres.get(pid) ?? 0);
  }
  return {
    api: after.tree.api - before.tree.api,
    fold: after.tree.fold - before.tree.fold,
    brokers: after.tree.brokers - before.tree.brokers,
    brokersJit: Math.max(0, after.tree.brokersJit - before.tree.brokersJit),
    postgres,
  };
}

/** `events` model calls in batches of `batch`; any answer but 202 ends the run. */
function send(
  urls: string[],
  key: string,
  experiment: string,
  tag: string,
  batch: number,
  events: number,
): Promise<void> {
  return sendModelCalls(urls, key, experiment, tag, Math.ceil(events / batch), batch);
}

/** Looks (100 ms apart) until `stored` events are stored and folded. */
async function untilFolded(watch: pg.Client, stored: number): Promise<void> {
  for (let look = 0; look < 30_000; look++) {
    const { rows } = await watch.query<{ stored: number; pending: number }>(
      `select (select count(*)::int from events) as stored,
        (select count(*)::int from ingest_pending) as pending`,
    );
    if (rows[0]?.stored === stored && rows[0]?.pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${stored} events not stored and folded`);
}

/** The warm-up folded, then the reading over sending `events` and their fold. */
async function measure(
  bench: BenchServer,
  urls: string[],
  components: Components,
  dbUrl: string,
  batch: number,
): Promise<Measured> {
  const watch = new pg.Client({ connectionString: dbUrl });
  await watch.connect();
  try {
    await send(urls, bench.secretKey, bench.experimentId, 'warm', batch, batch);
    await untilFolded(watch, batch);
    const started = performance.now();
    const before = await read(components, watch);
    await send(urls, bench.secretKey, bench.experimentId, 'bench', batch, eventsAt(batch));
    await untilFolded(watch, batch + eventsAt(batch));
    const after = await read(components, watch);
    const seconds = (performance.now() - started) / 1000;
    // What the components spend doing nothing: their share of the reading above is this rate
    // times its seconds, which the machine's load stretches.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = between(after, await read(components, watch));
    return { cpu: between(before, after), seconds, idle };
  } finally {
    await watch.end();
  }
}

async function singleNode(batch: number, brokers: number[]) {
  const db = await freshPostgres();
  const bench = await startBenchServer(db.url);
  try {
    const pid = bench.server.child.pid as number;
    return await measure(
      bench,
      [bench.server.url],
      { api: [pid], fold: [], brokers },
      db.url,
      batch,
    );
  } finally {
    await bench.stop();
    await db.drop();
  }
}

async function kafkaPath(
  batch: number,
  bootstrap: string,
  brokers: number[],
  metering: 'acceptance' | 'fold',
) {
  const db = await freshPostgres();
  const topic = `arbiter.cpu.${randomBytes(3).toString('hex')}`;
  const admin = new Admin({ clientId: 'arbiter-bench', bootstrapBrokers: bootstrap.split(',') });
  await admin.createTopics({ topics: [topic], partitions: 1, replicas: brokers.length });
  await admin.close();
  const kafka = {
    ARBITER_KAFKA_BROKERS: bootstrap,
    ARBITER_KAFKA_TOPIC: topic,
    ARBITER_KAFKA_METERING: metering,
  };
  const bench = await startBenchServer(db.url, { ...kafka, ARBITER_INGEST_WORKER: 'false' });
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-fold-'));
  let worker: RunningServer | undefined;
  try {
    worker = await startServer(
      {
        ...bench.env,
        ...kafka,
        ARBITER_DATA_DIR: dir,
        ARBITER_INGEST_WORKER: 'true',
        ARBITER_SCHEDULER: 'false',
      },
      NODE_ARGS,
    );
    const components = {
      api: [bench.server.child.pid as number],
      fold: [worker.child.pid as number],
      brokers,
    };
    return await measure(bench, [bench.server.url], components, db.url, batch);
  } catch (error) {
    console.error(
      `API process:\n${bench.server.output().slice(-3000)}\nfold worker:\n${worker?.output().slice(-3000)}`,
    );
    throw error;
  } finally {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    rmSync(dir, { recursive: true, force: true });
    await bench.stop();
    await db.drop();
  }
}

const us = (seconds: number, events: number) => Math.round((seconds * 1e6) / events);

const sum = (r: Reading) => r.api + r.fold + r.brokers + r.postgres;

function line(path: string, batch: number, r: Measured) {
  const n = eventsAt(batch);
  const idle = (sum(r.idle) / (IDLE_MS / 1000)) * r.seconds;
  console.log(
    `${path.padEnd(10)} batch ${String(batch).padStart(3)}: µs/event api ${us(r.cpu.api, n)}  fold ${us(r.cpu.fold, n)}  brokers ${us(r.cpu.brokers, n)} (JIT ${us(r.cpu.brokersJit, n)})  postgres ${us(r.cpu.postgres, n)}  total ${us(sum(r.cpu), n)}  of which idle ~${us(idle, n)}  (${n} events, ${r.seconds.toFixed(1)} s; idle CPU/s api ${(r.idle.api / (IDLE_MS / 1000)).toFixed(3)} fold ${(r.idle.fold / (IDLE_MS / 1000)).toFixed(3)} brokers ${(r.idle.brokers / (IDLE_MS / 1000)).toFixed(3)} postgres ${(r.idle.postgres / (IDLE_MS / 1000)).toFixed(3)})`,
  );
  return {
    total: sum(r.cpu) / n,
    busy: (sum(r.cpu) - idle) / n,
    warm: (sum(r.cpu) - idle - r.cpu.brokersJit) / n,
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-kafka-'));
  try {
    const bootstrap = runScript('kafka-cluster.sh', ['start', '1', dir]);
    const brokers = [Number(readFileSync(join(dir, 'broker-1.pid'), 'utf8'))];
    console.log(
      `load average at the start ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const batch of BATCHES) {
      const costs = new Map<string, { total: number; busy: number; warm: number }>();
      for (const path of PATHS) {
        // the single node leaves the broker idle; its idle CPU is not the single node's cost
        const r =
          path === 'single'
            ? await singleNode(batch, [])
            : await kafkaPath(
                batch,
                bootstrap,
                brokers,
                path === 'kafka-fold' ? 'fold' : 'acceptance',
              );
        costs.set(path, line(path, batch, r));
      }
      const single = costs.get('single');
      for (const path of ['kafka', 'kafka-fold']) {
        const kafka = costs.get(path);
        if (single && kafka)
          console.log(
            `batch ${batch}: ${path} / single node ${(kafka.total / single.total).toFixed(2)} (without the idle share ${(kafka.busy / single.busy).toFixed(2)}; without it and the broker's JIT ${(kafka.warm / single.busy).toFixed(2)})`,
          );
      }
    }
    console.log(
      `load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    runScript('kafka-cluster.sh', ['stop', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

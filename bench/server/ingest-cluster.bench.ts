/**
 * Events accepted and folded per second through the Kafka log: one API process
 * producing to a topic of P partitions, P fold workers consuming it into PostgreSQL, for P = 1
 * and 3; against single-node PostgreSQL ingest (one `arbiter serve`, the database as the log),
 * measured in the same run on the same PostgreSQL server. Each deployment gets a fresh
 * database and a new topic; one warm-up batch is folded first, so the consumer group has
 * joined and the clock measures ingest, not start-up.
 *
 *   ARBITER_TEST_PG_DIR=… npx tsx bench/server/ingest-cluster.bench.ts
 *   knobs: BENCH_EVENTS (40000), BENCH_BROKERS (1), BENCH_PARTITIONS ("1,3"), BENCH_APIS (1)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin } from '@platformatic/kafka';
import pg from 'pg';
import { type RunningServer, startServer } from '../../apps/server/test/support/process.ts';
import { runScript } from '../run-script.ts';
import { freshPostgres, SENDERS, sendModelCalls, startBenchServer, untilFolded } from './setup.ts';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 40_000);
const BROKERS = Number(process.env.BENCH_BROKERS ?? 1);
const PARTITIONS = (process.env.BENCH_PARTITIONS ?? '1,3').split(',').map(Number);
/** API processes of the Kafka deployments (the senders spread over them). */
const APIS = Number(process.env.BENCH_APIS ?? 1);
const PER_BATCH = 100;

/** Looks (20 ms apart) for `stored` events to be stored and folded; past them the fold is stuck. */
const FOLD_LOOKS = { looks: 60_000, everyMs: 20 };

interface Rate {
  accepted: number;
  folded: number;
}

/** A warm-up batch folded, then TOTAL events: accepted (202s) and accepted-and-folded per second. */
async function timed(urls: readonly string[], key: string, experimentId: string, dbUrl: string) {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await sendModelCalls(urls, key, experimentId, 'warm', 1, PER_BATCH);
    await untilFolded(client, PER_BATCH, FOLD_LOOKS);
    const started = performance.now();
    await sendModelCalls(urls, key, experimentId, 'bench', TOTAL / PER_BATCH, PER_BATCH);
    const accepted = performance.now();
    await untilFolded(client, PER_BATCH + TOTAL, FOLD_LOOKS);
    const folded = performance.now();
    return {
      accepted: TOTAL / ((accepted - started) / 1000),
      folded: TOTAL / ((folded - started) / 1000),
    };
  } finally {
    await client.end();
  }
}

/** Single-node PostgreSQL ingest: one process accepts (stores at acceptance) and folds. */
async function singleNode(): Promise<Rate> {
  const db = await freshPostgres();
  const bench = await startBenchServer(db.url);
  try {
    return await timed([bench.server.url], bench.secretKey, bench.experimentId, db.url);
  } finally {
    await bench.stop();
    rmSync(bench.env.ARBITER_DATA_DIR as string, { recursive: true, force: true });
    await db.drop();
  }
}

/** APIS API processes producing to a topic of `partitions`, and as many fold workers. */
async function cluster(brokers: string, partitions: number): Promise<Rate> {
  const db = await freshPostgres();
  const topic = `arbiter.bench.${randomBytes(3).toString('hex')}`;
  const admin = new Admin({ clientId: 'arbiter-bench', bootstrapBrokers: brokers.split(',') });
  await admin.createTopics({ topics: [topic], partitions, replicas: Math.min(3, BROKERS) });
  await admin.close();
  const kafka = { ARBITER_KAFKA_BROKERS: brokers, ARBITER_KAFKA_TOPIC: topic };
  const bench = await startBenchServer(db.url, { ...kafka, ARBITER_INGEST_WORKER: 'false' });
  const processes: Array<{ server: RunningServer; dir: string }> = [];
  try {
    for (let i = 0; i < partitions; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-fold-'));
      processes.push({
        dir,
        server: await startServer({
          ...bench.env,
          ...kafka,
          ARBITER_DATA_DIR: dir,
          ARBITER_INGEST_WORKER: 'true',
          ARBITER_SCHEDULER: 'false',
        }),
      });
    }
    const urls = [bench.server.url];
    for (let i = 1; i < APIS; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-api-'));
      const api = { ...bench.env, ...kafka, ARBITER_DATA_DIR: dir, ARBITER_INGEST_WORKER: 'false' };
      processes.push({ dir, server: await startServer(api) });
      urls.push(processes.at(-1)?.server.url as string);
    }
    return await timed(urls, bench.secretKey, bench.experimentId, db.url);
  } catch (error) {
    console.error(
      `the API process's log ends:\n${bench.server
        .output()
        .replace(/\\n +at [^\\n"]*/g, '')
        .slice(-6000)}`,
    );
    throw error;
  } finally {
    for (const w of processes) {
      w.server.child.kill('SIGTERM');
      await w.server.exited;
      rmSync(w.dir, { recursive: true, force: true });
    }
    await bench.stop();
    rmSync(bench.env.ARBITER_DATA_DIR as string, { recursive: true, force: true });
    await db.drop();
  }
}

const rate = (n: number) => `${Math.round(n).toLocaleString('en-US')} /s`.padStart(10);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-kafka-'));
  try {
    const brokers = runScript('kafka-cluster.sh', ['start', String(BROKERS), dir]);
    console.log(
      `events: ${TOTAL} in batches of ${PER_BATCH}, ${SENDERS} senders, ${BROKERS} broker(s), ${APIS} Kafka API process(es); load average ${loadavg()[0]?.toFixed(2)}`,
    );
    const base = await singleNode();
    console.log(
      `single-node PostgreSQL       accepted ${rate(base.accepted)}  accepted and folded ${rate(base.folded)}`,
    );
    for (const p of PARTITIONS) {
      const r = await cluster(brokers, p);
      console.log(
        `Kafka, ${p} partition(s) and fold worker(s): accepted ${rate(r.accepted)}  accepted and folded ${rate(r.folded)}  ratio to single node ${(r.folded / base.folded).toFixed(2)}`,
      );
    }
    console.log(`load average at the end ${loadavg()[0]?.toFixed(2)}`);
  } finally {
    runScript('kafka-cluster.sh', ['stop', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

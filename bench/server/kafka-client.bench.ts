/**
 * The Node Kafka client, measured: `@platformatic/kafka` (the server's), `kafkajs`
 * and `@confluentinc/kafka-javascript`, each producing the server's workload to a fresh topic
 * of its own on a local KRaft cluster (`scripts/kafka-cluster.sh`), then each reading one topic
 * back. The workload is what `BatchProducer` sends: JSON events of about 400 bytes keyed
 * `org:user`, the partition picked by murmur2 of the key, an idempotent producer with
 * acks=all, sends of 100 messages with a few in flight at once. Every figure is printed as a
 * ratio to `@platformatic/kafka` in the same run; each client runs in a process of its own,
 * whose CPU is read over the timed part only (the messages are built before it). A read's
 * rate runs from its first message (joining the group left out), its CPU includes the join.
 * The baseline produces and reads once, untimed, first: the broker is cold for the first.
 * `@confluentinc/kafka-javascript` is not a devDependency (its native build needs GitHub):
 * install it with `npm install --no-save` where it installs, and the bench measures it.
 *
 *   npx tsx bench/server/kafka-client.bench.ts
 *
 * BENCH_BROKERS (default 1), BENCH_MESSAGES (200,000), BENCH_CONCURRENCY (4 sends in flight),
 * BENCH_PARTITIONS (3), BENCH_ORDER (comma-separated client names; alternate it between runs),
 * BENCH_CONSUME=0 skips the read-back; BENCH_ONE_PRODUCER=1 gives platformatic one producer for
 * all sends in flight, as the server has (overlapping sends are refused, or lost: see below).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import {
  Admin,
  Consumer,
  MessagesStreamModes,
  murmur2,
  Producer,
  stringDeserializers,
} from '@platformatic/kafka';
import { PRODUCER_SETTINGS } from '../../apps/server/src/ingest/kafka/batch-producer.ts';
import { cpuSecondsOf } from './setup.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const require = createRequire(import.meta.url);

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200_000);
const PER_SEND = 100;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 3);
/** Sent before the timed part (connections, metadata, the producer id), and read back too. */
const WARM_UP = 2_000;
const ORG = '0b6f6c0e-3f5e-4c8e-9a51-6d1f0f6c2b7a';

const CLIENTS = ['platformatic', 'kafkajs', 'confluent'] as const;
type ClientName = (typeof CLIENTS)[number];

type Msg = { partition: number; key: string; value: string };

/**
 * One accepted model call as a message (about 400 bytes): what the server produced per event
 * before envelopes, kept so the clients are compared per message as they were measured.
 */
function workload(count: number, prefix: string): Msg[] {
  return Array.from({ length: count }, (_, i) => {
    const user = `user-${i % 50_000}`;
    const key = `${ORG}:${user}`;
    const value = JSON.stringify({
      org_id: ORG,
      event: {
        event_id: `${prefix}-${i}`,
        type: 'model_call',
        experiment_id: 'exp-bench-kafka-client',
        user_id: user,
        timestamp: '2026-11-25T12:00:00.000Z',
        variant: i % 2 === 0 ? 'control' : 'treatment',
        latency_ms: 100 + (i % 900),
        input_tokens: 120 + (i % 50),
        output_tokens: 300 + (i % 70),
        cost_usd: 0.00042,
        model: 'gpt-4o-mini',
        error: null,
        metadata: { route: '/chat', region: 'eu-west-1' },
        received_at: '2026-11-25T12:00:00.123Z',
        is_test: false,
      },
    });
    return { partition: (murmur2(Buffer.from(key)) >>> 0) % PARTITIONS, key, value };
  });
}

/** What each client does, behind one shape: connect, send one batch, read `n` back, close. */
interface Producing {
  /** `lane`: which of the sends in flight this is (0 to CONCURRENCY - 1). */
  send(messages: Msg[], lane: number): Promise<void>;
  close(): Promise<void>;
}
interface Consuming {
  /**
   * Resolves once `n` messages were read from the topic's start, with the time the first one
   * arrived: the rate leaves out joining the group, which differs by client and by luck.
   */
  readAll(n: number): Promise<bigint>;
  close(): Promise<void>;
}

async function producer(client: ClientName, brokers: string[], topic: string): Promise<Producing> {
  if (client === 'platformatic') {
    // The server's settings (PRODUCER_SETTINGS), but one producer
    // per send in flight: 1.35 takes a partition's sequence number when a send starts and
    // moves it on only at the answer, so two overlapping sends to one partition carry the same
    // sequence and the broker refuses the second (OUT_OF_ORDER_SEQUENCE_NUMBER).
    // BENCH_ONE_PRODUCER=1 shares one producer as the server does, to show the refusal.
    const shared = process.env.BENCH_ONE_PRODUCER === '1';
    const pool = Array.from(
      { length: shared ? 1 : CONCURRENCY },
      () => new Producer({ clientId: 'bench', bootstrapBrokers: brokers, ...PRODUCER_SETTINGS }),
    );
    return {
      send: async (messages, lane) => {
        await (pool[shared ? 0 : lane] as (typeof pool)[number]).send({
          messages: messages.map((m) => ({ topic, ...m })),
        });
      },
      close: async () => {
        await Promise.all(pool.map((p) => p.close()));
      },
    };
  }
  if (client === 'kafkajs') {
    const { Kafka, logLevel } = require('kafkajs');
    const kafka = new Kafka({ clientId: 'bench', brokers, logLevel: logLevel.NOTHING });
    // Sequence numbers are taken per partition as a request is built, so sends may overlap.
    const p = kafka.producer({ idempotent: true });
    await p.connect();
    return {
      send: async (messages) => {
        await p.send({ topic, acks: -1, messages });
      },
      close: () => p.disconnect(),
    };
  }
  const { KafkaJS } = require('@confluentinc/kafka-javascript');
  const kafka = new KafkaJS.Kafka({
    kafkaJS: { clientId: 'bench', brokers, logLevel: KafkaJS.logLevel.NOTHING },
  });
  const p = kafka.producer({ kafkaJS: { idempotent: true, acks: -1 } });
  await p.connect();
  return {
    send: async (messages) => {
      await p.send({ topic, messages });
    },
    close: () => p.disconnect(),
  };
}

async function consumer(client: ClientName, brokers: string[], topic: string): Promise<Consuming> {
  const groupId = `bench-${client}-${randomBytes(4).toString('hex')}`;
  if (client === 'platformatic') {
    const c = new Consumer({
      clientId: 'bench',
      groupId,
      bootstrapBrokers: brokers,
      deserializers: stringDeserializers,
      maxWaitTime: 500,
    });
    let stream: Awaited<ReturnType<typeof c.consume>> | null = null;
    return {
      readAll: async (n) => {
        const s = await c.consume({
          topics: [topic],
          mode: MessagesStreamModes.EARLIEST,
          autocommit: false,
        });
        stream = s;
        let read = 0;
        let first = 0n;
        return new Promise<bigint>((resolve, reject) => {
          s.on('data', (m: { value: string }) => {
            if (read === 0) first = process.hrtime.bigint();
            if (m.value.length > 0 && ++read === n) resolve(first);
          });
          s.on('error', reject);
        });
      },
      close: async () => {
        await stream?.close();
        await c.close(true);
      },
    };
  }
  // Both KafkaJS-shaped clients: one batch at a time, each value decoded as the server would.
  let c: {
    connect(): Promise<void>;
    subscribe(a: object): Promise<void>;
    run(a: object): Promise<void>;
    disconnect(): Promise<void>;
  };
  if (client === 'kafkajs') {
    const { Kafka, logLevel } = require('kafkajs');
    c = new Kafka({ clientId: 'bench', brokers, logLevel: logLevel.NOTHING }).consumer({
      groupId,
      maxWaitTimeInMs: 500,
    });
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
  } else {
    const { KafkaJS } = require('@confluentinc/kafka-javascript');
    c = new KafkaJS.Kafka({
      kafkaJS: { clientId: 'bench', brokers, logLevel: KafkaJS.logLevel.NOTHING },
    }).consumer({ kafkaJS: { groupId, fromBeginning: true, autoCommit: false } });
    await c.connect();
    await c.subscribe({ topics: [topic] });
  }
  return {
    readAll: (n) =>
      new Promise<bigint>((resolve, reject) => {
        let read = 0;
        let first = 0n;
        c.run({
          autoCommit: client === 'kafkajs' ? false : undefined,
          eachBatch: async ({
            batch,
          }: {
            batch: { messages: { key: Buffer | null; value: Buffer | null }[] };
          }) => {
            for (const m of batch.messages) {
              if (read === 0) first = process.hrtime.bigint();
              // Key and value decoded, as the string deserializers of platformatic do.
              const key = m.key?.toString() ?? '';
              if (key.length + (m.value?.toString() ?? '').length > 0 && ++read === n) {
                resolve(first);
              }
            }
          },
        }).catch(reject);
      }),
    close: () => c.disconnect(),
  };
}

/** One client's part, in a process of its own: prints one JSON line with its figures. */
async function child(mode: string, client: ClientName, brokers: string[], topic: string) {
  const total = Number(process.env.BENCH_CHILD_COUNT);
  if (mode === 'produce') {
    const warm = workload(WARM_UP, `warm-${topic}`);
    const all = workload(MESSAGES, topic);
    const sends: Msg[][] = [];
    for (let i = 0; i < all.length; i += PER_SEND) sends.push(all.slice(i, i + PER_SEND));
    const p = await producer(client, brokers, topic);
    // Every lane sends once before the clock starts (its connection and producer id).
    for (let i = 0; i < warm.length; i += PER_SEND) {
      await p.send(warm.slice(i, i + PER_SEND), (i / PER_SEND) % CONCURRENCY);
    }
    const cpu = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, lane) => {
        while (next < sends.length) await p.send(sends[next++] as Msg[], lane);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const used = process.cpuUsage(cpu);
    await p.close();
    const out = { messages: all.length, seconds, cpu: (used.user + used.system) / 1e6 };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } else {
    const c = await consumer(client, brokers, topic);
    const cpu = process.cpuUsage();
    const t0 = await c.readAll(total);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const used = process.cpuUsage(cpu);
    await c.close();
    const out = { messages: total, seconds, cpu: (used.user + used.system) / 1e6 };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
  process.exit(0);
}

type Figures = { messages: number; seconds: number; cpu: number; brokerCpu: number };

function brokerPids(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => /^broker-\d+\.pid$/.test(f))
    .map((f) => Number(readFileSync(join(dir, f), 'utf8').trim()));
}

/** Runs one child; the brokers' CPU is read around it (the child's start included). */
function runChild(args: string[], dir: string, env: Record<string, string> = {}): Promise<Figures> {
  const pids = brokerPids(dir);
  const before = pids.map(cpuSecondsOf);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', SELF, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), 600_000);
    p.on('exit', (code) => {
      clearTimeout(timer);
      const brokerCpu = pids.reduce((s, pid, i) => s + cpuSecondsOf(pid) - (before[i] ?? 0), 0);
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`));
        return;
      }
      resolve({ ...JSON.parse(line), brokerCpu });
    });
  });
}

function installed(client: ClientName): boolean {
  const name = {
    platformatic: '@platformatic/kafka',
    kafkajs: 'kafkajs',
    confluent: '@confluentinc/kafka-javascript',
  }[client];
  try {
    require(name);
    return true;
  } catch (error) {
    console.log(
      `${client}: not measured, ${name} does not load: ${(error as Error).message.split('\n')[0]}`,
    );
    return false;
  }
}

async function main() {
  const brokersN = Number(process.env.BENCH_BROKERS ?? 1);
  const order = (process.env.BENCH_ORDER ?? CLIENTS.join(','))
    .split(',')
    .map((s) => s.trim()) as ClientName[];
  const clients = order.filter((c) => CLIENTS.includes(c) && installed(c));
  if (!clients.includes('platformatic')) throw new Error('the baseline, platformatic, must run');
  const dir = mkdtempSync(join(tmpdir(), 'kafka-client-bench-'));
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${brokersN} broker(s), ` +
      `${PARTITIONS} partitions, ${MESSAGES} messages in sends of ${PER_SEND}, ` +
      `${CONCURRENCY} in flight; order ${clients.join(', ')}`,
  );
  try {
    const bootstrap = execFileSync(
      'bash',
      [join(ROOT, 'scripts/kafka-cluster.sh'), 'start', String(brokersN), dir],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
      .trim()
      .split('\n')
      .pop() as string;
    const brokers = bootstrap.split(',');
    const admin = new Admin({ clientId: 'bench', bootstrapBrokers: brokers });
    const topics = Object.fromEntries(
      clients.map((c) => [c, `bench-${c}-${randomBytes(4).toString('hex')}`]),
    ) as Record<ClientName, string>;
    const warmTopic = `bench-warm-${randomBytes(4).toString('hex')}`;
    await admin.createTopics({
      topics: [warmTopic, ...Object.values(topics)],
      partitions: PARTITIONS,
      replicas: Math.min(3, brokersN),
    });
    await admin.close();

    // A first, untimed produce by the baseline to a topic of its own: the first producer of a
    // run met a cold broker and was 1.5-2x slower whichever client it was.
    await runChild(['produce', 'platformatic', bootstrap, warmTopic], dir);
    const produced = new Map<ClientName, Figures>();
    for (const c of clients) {
      produced.set(c, await runChild(['produce', c, bootstrap, topics[c]], dir));
    }
    report('produce', produced);

    if (process.env.BENCH_CONSUME !== '0') {
      // Every client reads the same topic: the one the baseline wrote. A first, untimed read
      // by the baseline: the first reader of a topic was 1.5-3x slower whichever client it was.
      await runChild(['consume', 'platformatic', bootstrap, topics.platformatic], dir, {
        BENCH_CHILD_COUNT: String(MESSAGES + WARM_UP),
      });
      const consumed = new Map<ClientName, Figures>();
      for (const c of clients) {
        consumed.set(
          c,
          await runChild(['consume', c, bootstrap, topics.platformatic], dir, {
            BENCH_CHILD_COUNT: String(MESSAGES + WARM_UP),
          }),
        );
      }
      report('consume', consumed);
    }
    console.log(
      `load average after ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    execFileSync('bash', [join(ROOT, 'scripts/kafka-cluster.sh'), 'stop', dir], {
      stdio: 'inherit',
    });
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(what: string, figures: Map<ClientName, Figures>) {
  const base = figures.get('platformatic') as Figures;
  const rate = (f: Figures) => f.messages / f.seconds;
  const cpuPer = (f: Figures) => (f.cpu / f.messages) * 1e6;
  const brokerPer = (f: Figures) => (f.brokerCpu / f.messages) * 1e6;
  console.log(
    `\n${what}: messages/s, client CPU µs/message, broker CPU µs/message (ratio to platformatic)`,
  );
  for (const [c, f] of figures) {
    console.log(
      `  ${c.padEnd(12)} ${rate(f).toFixed(0).padStart(7)}/s (${(rate(f) / rate(base)).toFixed(2)})` +
        `  ${cpuPer(f).toFixed(1).padStart(6)} µs (${(cpuPer(f) / cpuPer(base)).toFixed(2)})` +
        `  broker ${brokerPer(f).toFixed(1).padStart(6)} µs (${(brokerPer(f) / brokerPer(base)).toFixed(2)})`,
    );
  }
}

const [mode, client, bootstrap, topic] = process.argv.slice(2);
if (mode === 'produce' || mode === 'consume') {
  child(mode, client as ClientName, (bootstrap ?? '').split(','), topic ?? '').catch((error) => {
    console.error(inspect(error, { depth: 8 }));
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}

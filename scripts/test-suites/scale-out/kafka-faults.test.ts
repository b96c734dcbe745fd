import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin } from '@platformatic/kafka';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../apps/server/src/db/connect.ts';
import { type Harness, startHarness } from '../../../apps/server/test/support/harness.ts';
import { freePort } from '../../../apps/server/test/support/process.ts';
import type { Arbiter } from '../../../clients/typescript/src/index.ts';
import { aggregatesOf, ledgerOf } from './support/aggregates.ts';
import {
  type ArbiterProcess,
  type Deployment,
  end,
  startApi,
  startFoldWorker,
} from './support/arbiter-processes.ts';
import { killFoldBeforeCommit } from './support/fold-kill.ts';
import { SendingClient } from './support/sending-client.ts';

/**
 * The Kafka log under faults: three brokers, two API processes and two fold workers on one
 * PostgreSQL server take 20,000 events from two TypeScript clients (one per API process, with
 * their retries and offline stores) while a broker is killed at 30 %, an API process is killed
 * at 60 % and started again, and a fold worker is killed between storing its stretch and its
 * commit. Afterwards the org is metered exactly 20,000 and every aggregate equals the one a
 * single-node deployment folds from the same events. The whole run twice: with de-duplication
 * and metering at acceptance (each id claimed before the 202) and at the fold (no claim).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TOTAL = 20_000;
const PER_CLIENT = TOTAL / 2;

function script(args: string[]) {
  const result = spawnSync('bash', [join(ROOT, 'scripts', 'kafka-cluster.sh'), ...args], {
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

type Metering = 'acceptance' | 'fold';

let dir = '';
let deployment: Deployment;
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId = '';
let apis: ArbiterProcess[] = [];
const workers = new Map<string, ArbiterProcess>();

/** Three brokers of their own (a run kills one), the harness and the four processes. */
async function startDeployment(metering: Metering): Promise<void> {
  apis = [];
  workers.clear();
  if (process.env.ARBITER_TEST_DB !== 'postgres')
    throw new Error('run through scripts/test-suites/scale-out.sh (a PostgreSQL server)');
  dir = mkdtempSync(join(tmpdir(), 'arbiter-kafka-faults-'));
  const started = script(['start', '3', dir]);
  expect(started.code, started.stderr).toBe(0);
  const brokers = started.stdout.split('\n').at(-1) ?? '';
  const topic = `arbiter.events.${randomBytes(3).toString('hex')}`;
  const admin = new Admin({ clientId: 'arbiter-test', bootstrapBrokers: brokers.split(',') });
  await admin.createTopics({ topics: [topic], partitions: 3, replicas: 3 });
  await admin.close();
  // This process makes the org, its key and the experiment, and reads the database; it sends
  // no events and folds none.
  h = await startHarness({
    ARBITER_KAFKA_BROKERS: brokers,
    ARBITER_KAFKA_TOPIC: topic,
    ARBITER_KAFKA_METERING: metering,
    ARBITER_INGEST_WORKER: 'false',
  });
  deployment = { databaseUrl: h.databaseUrl ?? '', brokers, topic, metering };
  org = await h.org('kafka-faults');
  experimentId = await h.experiment(org.admin, { name: 'kafka-faults-exp' });
  for (const name of ['api-1', 'api-2'])
    apis.push(await startApi(deployment, `arbiter-${name}`, await freePort()));
  for (const name of ['arbiter-fold-1', 'arbiter-fold-2'])
    workers.set(name, await startFoldWorker(deployment, name));
}

async function stopDeployment(): Promise<void> {
  await Promise.allSettled([...apis, ...workers.values()].map((p) => end(p, 'SIGTERM')));
  await h?.close();
  script(['stop', dir]);
  rmSync(dir, { recursive: true, force: true });
}

/** Event `i` of a client: model calls of every shape, and a business event in five. */
function eventOf(prefix: string) {
  return (i: number): Parameters<Arbiter['track']> => {
    const user = i % 200;
    const base = {
      experiment_id: experimentId,
      user_id: `${prefix}-user-${user}`,
      variant: user % 2 === 0 ? 'control' : 'treatment',
    };
    if (i % 5 === 4)
      return ['business_event', { ...base, business_metric: 'checkout', value: i % 7 }];
    return [
      'model_call',
      {
        ...base,
        latency_ms: 50 + (i % 300),
        input_tokens: i % 40,
        output_tokens: i % 90,
        cost_usd: (i % 13) / 1000,
        error: i % 17 === 0 ? 'timeout' : null,
      },
    ];
  };
}

/** Looks (20 ms apart) for the sending to reach a fault's point; past them the sending is stuck. */
const PROGRESS_LOOKS = 30_000;

async function reach(progress: () => number, events: number): Promise<number> {
  for (let look = 0; look < PROGRESS_LOOKS; look++) {
    const at = progress();
    if (at >= events) return at;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the clients did not reach ${events} acknowledged events`);
}

/** The faults, each when the clients have had that share of the events acknowledged. */
async function injectFaults(progress: () => number, log: string[]): Promise<void> {
  const broker = Number(readFileSync(join(dir, 'broker-1.pid'), 'utf8').trim());
  log.push(`broker 1 killed at ${await reach(progress, 0.3 * TOTAL)}`);
  spawnSync('kill', ['-9', String(broker)]);

  await reach(progress, 0.45 * TOTAL);
  const killed = await killFoldBeforeCommit(deployment.databaseUrl, 'arbiter-fold-', (name) => {
    const worker = workers.get(name);
    if (worker === undefined) throw new Error(`no fold worker named ${name}`);
    workers.delete(name);
    return end(worker, 'SIGKILL');
  });
  log.push(`${killed} killed before its commit at ${progress()}`);

  log.push(`API process 2 killed at ${await reach(progress, 0.6 * TOTAL)}`);
  const [first, second] = apis;
  if (first === undefined || second === undefined) throw new Error('two API processes expected');
  await end(second, 'SIGKILL');
  // On its port again, as a supervisor restarts it behind the same address.
  apis[1] = await startApi(deployment, 'arbiter-api-2', Number(new URL(second.url).port));
  log.push(`API process 2 restarted at ${progress()}`);
}

/** Looks (500 ms apart) for the fold workers to fold everything on the topic. */
const FOLD_LOOKS = 600;

async function foldedToTheEnd(): Promise<void> {
  for (let look = 0; (await h.ctx.eventLog.depth()) > 0; look++) {
    if (look >= FOLD_LOOKS) throw new Error(`not folded: ${await h.ctx.eventLog.depth()} behind`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The same events through a single-node deployment (the PostgreSQL log, one process). */
async function singleNodeRun(events: Array<Record<string, unknown>>) {
  const single = await startHarness({ ARBITER_INGEST_WORKER: 'true' });
  try {
    const o = await single.org('kafka-faults-single');
    const x = await single.experiment(o.admin, { name: 'kafka-faults-exp' });
    for (let from = 0; from < events.length; from += 1_000) {
      const batch = events.slice(from, from + 1_000).map((e) => ({ ...e, experiment_id: x }));
      const res = await single.ingest(o.secret, {
        method: 'POST',
        url: '/v1/events',
        payload: { events: batch },
      });
      if (res.statusCode !== 202) throw new Error(`single node refused: ${res.body}`);
    }
    await single.ctx.worker.foldAll();
    return {
      ledger: await ledgerOf(single.ctx.db, o.orgId),
      aggregates: await aggregatesOf(single.ctx.db, x),
    };
  } finally {
    await single.close();
  }
}

describe.each(['acceptance', 'fold'] as const)(
  'the Kafka log under faults, metered at %s',
  (metering) => {
    beforeAll(() => startDeployment(metering));
    afterAll(stopDeployment);

    it('meters 20,000 once and folds them as a single node does, through a broker, an API process and a fold worker killed', async () => {
      const clients = apis.map((api) => new SendingClient(org.secret, api.url));
      const progress = () => clients.reduce((n, c) => n + c.stats().sent, 0);
      const faults: string[] = [];
      try {
        await Promise.all([
          ...clients.map((c, k) => c.deliver(PER_CLIENT, 1_000, eventOf(`c${k}`))),
          injectFaults(progress, faults),
        ]);
        for (const c of clients) {
          expect(c.stats(), c.lastWords()).toMatchObject({ sent: PER_CLIENT, dropped: 0 });
          expect(c.sent.size).toBe(PER_CLIENT);
        }
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
      await foldedToTheEnd();

      const events = clients.flatMap((c) => [...c.sent.values()]) as unknown as Array<
        Record<string, unknown>
      >;
      expect(await ledgerOf(h.ctx.db, org.orgId)).toEqual({ metered: TOTAL, stored: TOTAL });
      const [claims] = await rows<{ n: string }>(
        h.ctx.db,
        sql`select count(*) as n from event_claims where org_id = ${org.orgId}::uuid`,
      );
      // At the fold nothing is claimed: the events' own `(org_id, event_id)` is the idempotency key.
      expect(Number(claims?.n)).toBe(metering === 'acceptance' ? TOTAL : 0);
      const single = await singleNodeRun(events);
      expect(single.ledger).toEqual({ metered: TOTAL, stored: TOTAL });
      const aggregates = await aggregatesOf(h.ctx.db, experimentId);
      expect(aggregates.stats.length).toBeGreaterThan(0);
      expect(aggregates).toEqual(single.aggregates);
      const [inbox] = await rows<{ n: string }>(
        h.ctx.db,
        sql`select sum(next_offset) as n from ingest_inbox where topic = ${deployment.topic}`,
      );
      // What the faults cost, for the record (docs/scale-out.md): retries, spills, doubled messages.
      console.info(
        `faults: ${faults.join('; ')}; clients ${JSON.stringify(clients.map((c) => c.stats()))};` +
          ` messages on the topic ${inbox?.n} for ${TOTAL} events`,
      );
    });
  },
);

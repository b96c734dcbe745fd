import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../apps/server/src/db/connect.ts';
import { type Harness, startHarness } from '../../../apps/server/test/support/harness.ts';
import { Arbiter } from '../../../clients/typescript/src/index.ts';
import { type ArbiterProcess, end, startFoldWorker } from './support/arbiter-processes.ts';
import { cappedOrg } from './support/capped-org.ts';
import { kafkaCluster, startBroker } from './support/kafka-broker.ts';
import {
  envelopeCount,
  eventsIn,
  produceAgain,
  readTopic,
  type TopicMessage,
  endOffsets as topicEnd,
} from './support/topic-messages.ts';

/**
 * The Kafka event log (`ARBITER_KAFKA_BROKERS`) on a real broker and a real PostgreSQL server
 * (scripts/test-suites/scale-out.sh starts one): the 202 follows the broker's acknowledgement,
 * a broker that cannot take a batch is a 503 that meters nothing, and the fold workers count
 * every event once, through a retried batch, a redelivered message and a fold killed between
 * storing its stretch and committing. With the broker stopped, the TypeScript client keeps the
 * refused events in its offline store and replays them once the broker is back.
 */
const script = kafkaCluster;

const topic = `arbiter.events.${randomBytes(3).toString('hex')}`;
let dir = '';
let brokers = '';
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId = '';
let url = '';
/** The first message read back, produced once more by a later test. */
let firstMessage: { key: string; value: string } | undefined;
/** The first batch as sent, sent again as a client's retry sends it. */
let firstBatch: ReturnType<typeof batch> = [];
/** Events of the org accepted so far (each once, whatever was sent again). */
let accepted = 10;
/** The topic's partitions. */
const PARTITIONS = 3;
/** Messages on the topic so far (each request one envelope per partition its users fall in). */
let produced = 0;

beforeAll(async () => {
  if (process.env.ARBITER_TEST_DB !== 'postgres')
    throw new Error('run through scripts/test-suites/scale-out.sh (a PostgreSQL server)');
  ({ dir, brokers } = await startBroker('arbiter-kafka-log-', topic, PARTITIONS));
  // The API process only produces; the fold workers below are processes of their own.
  h = await startHarness({
    ARBITER_KAFKA_BROKERS: brokers,
    ARBITER_KAFKA_TOPIC: topic,
    ARBITER_INGEST_WORKER: 'false',
    // The free plan's hard cap, which applies by default only with billing.
    ARBITER_ENFORCE_LIMITS: 'true',
  });
  url = h.databaseUrl ?? '';
  org = await h.org('kafka-log');
  experimentId = await h.experiment(org.admin, { name: 'kafka-log-exp' });
});
afterAll(async () => {
  await h?.close();
  script(['stop', dir]);
  rmSync(dir, { recursive: true, force: true });
});

const call = (id: string, user: string) => ({
  event_id: id,
  type: 'model_call',
  experiment_id: experimentId,
  user_id: user,
  variant: 'control',
  timestamp: new Date().toISOString(),
  latency_ms: 100,
});
const batch = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => call(`${prefix}-${i}`, `user-${i % 4}`));
const send = (events: unknown[]) =>
  h.ingest(org.secret, { method: 'POST', url: '/v1/events', payload: { events } });

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await rows<{ n: number | string }>(h.ctx.db, query);
  return Number(row?.n ?? 0);
}
const metered = () =>
  count(
    sql`select coalesce(sum(events), 0) as n from usage_counters where org_id = ${org.orgId}::uuid`,
  );
const folded = () =>
  count(
    sql`select coalesce(sum(calls), 0) as n from user_day_stats where experiment_id = ${experimentId}::uuid`,
  );
const stored = () => count(sql`select count(*) as n from events where org_id = ${org.orgId}::uuid`);
const claimed = () =>
  count(sql`select count(*) as n from event_claims where org_id = ${org.orgId}::uuid`);
const inboxed = () =>
  count(sql`select coalesce(sum(next_offset), 0) as n from ingest_inbox where topic = ${topic}`);

const endOffsets = () => topicEnd(brokers, topic);

/** A fold worker: `arbiter serve` with the ingest worker on, its own process, consumer and connections. */
const startWorker = () => startFoldWorker({ databaseUrl: url, brokers, topic }, 'arbiter-fold');

const stop = (worker: ArbiterProcess) => end(worker, 'SIGTERM');

/** Waits until the topic is read to its end and everything stored is folded. */
async function foldedToTheEnd(worker?: ArbiterProcess): Promise<void> {
  const deadline = Date.now() + STUCK_MS;
  while ((await h.ctx.eventLog.depth()) > 0) {
    if (Date.now() > deadline) throw new Error(await stuck('folded to the end', worker));
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A poll that goes on this long is stuck (a healthy one ends in seconds): it fails with what the
 * database and the worker show, rather than running into the test's timeout with nothing said.
 */
const STUCK_MS = 120_000;

async function stuck(what: string, worker?: ArbiterProcess): Promise<string> {
  const activity = await rows<Record<string, unknown>>(
    h.ctx.db,
    sql`select pid, state, wait_event_type, wait_event, left(query, 120) as query
      from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  return [
    `stuck waiting for ${what}: inbox ${await inboxed()}, stored ${await stored()}, folded ${await folded()}, topic end ${await endOffsets()}`,
    `backends: ${JSON.stringify(activity)}`,
    `worker output: ${worker?.output().slice(-4000) ?? '(none)'}`,
  ].join('\n');
}

describe('the Kafka event log', () => {
  it('answers 202 once the events are on the topic, an envelope per partition, claimed and metered', async () => {
    const events = batch('first', 10);
    firstBatch = events;
    produced = envelopeCount(org.orgId, events, PARTITIONS);
    const res = await send(events);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 10, duplicates: 0 });
    // Read after the 202: the broker has all ten in one envelope per partition their users
    // fall in (four users over three partitions), and the database only claimed them.
    expect(produced).toBeLessThan(10);
    expect(await endOffsets()).toBe(BigInt(produced));
    const messages = await readTopic(brokers, topic, produced);
    expect(messages.flatMap((m) => eventsIn(m).map((e) => e.event_id)).sort()).toEqual(
      events.map((e) => e.event_id).sort(),
    );
    firstMessage = messages[0];
    for (const m of messages) {
      const { org_id, events: inside } = JSON.parse(m.value);
      expect(org_id).toBe(org.orgId);
      expect(m.key).toBe(`${org.orgId}:${inside[0].user_id}`);
      // every event of an envelope is of the envelope's partition
      expect(envelopeCount(org.orgId, inside, PARTITIONS)).toBe(1);
    }
    expect(await metered()).toBe(10);
    expect(await claimed()).toBe(10);
    expect(await stored()).toBe(0);
  });

  it('acknowledges a batch sent again without producing or metering it again', async () => {
    const res = await send(firstBatch);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 10, duplicates: 10, conflicts: 0 });
    expect(await endOffsets()).toBe(BigInt(produced));
    expect(await metered()).toBe(10);
    expect(await claimed()).toBe(10);
  });

  it('a fold worker stores and folds every event once and records its offsets in the inbox', async () => {
    const worker = await startWorker();
    try {
      await foldedToTheEnd();
      expect(await folded()).toBe(10);
      expect(await stored()).toBe(10);
      expect(await inboxed()).toBe(produced);
      expect(await metered()).toBe(10);
    } finally {
      await stop(worker);
    }
  });

  it('folds a message on the log twice once, and redoes a fold killed before its commit from the inbox', async () => {
    // An accepted event whose claim did not commit after the broker's ack is produced again by
    // the client's retry: the topic then holds it twice.
    // An envelope of several events, so the whole envelope is on the topic twice.
    expect(eventsIn(firstMessage as TopicMessage).length).toBeGreaterThan(1);
    await produceAgain(brokers, topic, firstMessage as TopicMessage);
    const second = batch('second', 10);
    expect((await send(second)).statusCode).toBe(202);
    accepted += 10;
    produced += 1 + envelopeCount(org.orgId, second, PARTITIONS);
    expect(await endOffsets()).toBe(BigInt(produced));

    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    // Events accepted and messages on the topic so far; a fold that wins the race below (it
    // commits before the test holds its lock again) is answered with one more batch.
    let offsets = produced;
    const worker = await startWorker();
    try {
      // The fold's aggregate upsert waits on this lock, after it stored its stretch; the worker
      // is then killed (SIGKILL): its transaction never commits.
      for (let round = 0; ; round++) {
        await blocker.query('begin');
        await blocker.query('lock table user_day_stats in share mode');
        const waiting = await waitingFold(blocker, offsets, worker);
        if (waiting === 'all folded') {
          await blocker.query('rollback');
          const late = batch(`late-${round}`, 10);
          expect((await send(late)).statusCode).toBe(202);
          accepted += 10;
          offsets += envelopeCount(org.orgId, late, PARTITIONS);
          continue;
        }
        if (waiting.storedEvents) {
          // What the waiting fold has not committed is invisible here: read it now, and again
          // once its backend is gone.
          const before = [await inboxed(), await stored(), await folded()];
          worker.child.kill('SIGKILL');
          await worker.exited;
          await blocker.query('rollback');
          await gone(blocker, waiting.pid, worker);
          expect([await inboxed(), await stored(), await folded()]).toEqual(before);
          expect(before[0]).toBeLessThan(offsets);
          break;
        }
        await blocker.query('rollback');
      }
    } finally {
      await blocker.end();
      await end(worker, 'SIGKILL');
    }

    const restarted = await startWorker();
    try {
      await foldedToTheEnd(restarted);
      expect(await inboxed()).toBe(offsets);
      // the message on the topic twice is stored and folded once
      expect(await stored()).toBe(accepted);
      expect(await folded()).toBe(accepted);
      expect(await metered()).toBe(accepted);
    } finally {
      await stop(restarted);
    }
  });

  it("cuts a batch at the free plan's allowance: only what fits is produced and metered", async () => {
    const capped = await cappedOrg(h, 'kafka-capped', 49_999);
    const { exposure } = capped;
    const before = await endOffsets();
    const partial = await h.ingest(capped.secret, {
      method: 'POST',
      url: '/v1/events',
      payload: { events: [exposure('cap-1'), exposure('cap-2')] },
    });
    expect(partial.statusCode, partial.body).toBe(202);
    expect(partial.json().accepted).toBe(1);
    expect(partial.json().rejected[0].index).toBe(1);
    expect(await endOffsets()).toBe(before + 1n);
    const refused = await h.ingest(capped.secret, {
      method: 'POST',
      url: '/v1/events',
      payload: { events: [exposure('cap-3')] },
    });
    expect(refused.statusCode).toBe(429);
    expect(await endOffsets()).toBe(before + 1n);
    expect(
      await count(
        sql`select sum(events) as n from usage_counters where org_id = ${capped.orgId}::uuid`,
      ),
    ).toBe(50_000);
    expect(
      await count(sql`select count(*) as n from event_claims where org_id = ${capped.orgId}::uuid`),
    ).toBe(1);
  });

  it('answers a reused id with other content as a conflict beside a new id, producing only the new', async () => {
    const before = await endOffsets();
    const reused = { ...(firstBatch[0] as ReturnType<typeof call>), latency_ms: 999 };
    const repeated = firstBatch[1] as ReturnType<typeof call>;
    const fresh = call('beside-0', 'user-0');
    const res = await send([reused, repeated, fresh]);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 2, duplicates: 1, conflicts: 1 });
    expect(res.json().rejected).toEqual([
      expect.objectContaining({ index: 0, detail: expect.stringContaining('different content') }),
    ]);
    accepted += 1;
    expect(await endOffsets()).toBe(before + 1n);
    expect(await metered()).toBe(accepted);
    expect(await claimed()).toBe(accepted);
  });

  it('accepts concurrent batches to one process, each on the topic once', async () => {
    // The idempotent producer allows one send in flight: concurrent requests share sends.
    const before = await endOffsets();
    const ROUNDS = 12;
    // Batches of 100 users each, so every send touches every partition.
    const spread = (prefix: string) =>
      Array.from({ length: 100 }, (_, i) => call(`${prefix}-${i}`, `${prefix}-user-${i}`));
    // Eight senders, each sending its next batch as soon as the last is answered: sends start
    // while others are out, as under real load.
    let envelopes = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, k) => {
        for (let round = 0; round < ROUNDS; round++) {
          const events = spread(`concurrent-${k}-${round}`);
          envelopes += envelopeCount(org.orgId, events, PARTITIONS);
          const res = await send(events);
          expect(res.statusCode, res.body).toBe(202);
        }
      }),
    );
    accepted += ROUNDS * 8 * 100;
    // one envelope per request and partition, each on the topic once
    expect(envelopes).toBe(ROUNDS * 8 * PARTITIONS);
    expect(await endOffsets()).toBe(before + BigInt(envelopes));
    expect(await metered()).toBe(accepted);
    expect(await claimed()).toBe(accepted);
  });

  it('answers 503 with Retry-After and claims and meters nothing when the broker is down', async () => {
    expect(script(['stop', dir]).code).toBe(0);
    const res = await send(batch('third', 5));
    expect(res.statusCode, res.body).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json().type).toMatch(/\/problems\/event-log-unavailable$/);
    expect(await metered()).toBe(accepted);
    expect(await claimed()).toBe(accepted);
  });

  it('the TypeScript client keeps what the stopped broker refused and replays it once it is back', async () => {
    // The broker is still stopped (the test above). The client talks HTTP to the app.
    const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const spill = mkdtempSync(join(tmpdir(), 'arbiter-kafka-spill-'));
    const warnings: string[] = [];
    const client = new Arbiter({
      apiKey: org.secret,
      baseUrl,
      offlineStorePath: join(spill, 'events.ndjson'),
      trackExposures: false,
      // Only flush() sends, so the test knows when the client spilled and replayed.
      pollIntervalMs: 3_600_000,
      flushIntervalMs: 3_600_000,
      maxAttempts: 2,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 5,
      retryAfterCapMs: 20,
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
    try {
      for (let i = 0; i < 20; i++) {
        client.track('model_call', {
          experiment_id: experimentId,
          user_id: `spill-${i % 4}`,
          variant: 'control',
          latency_ms: 100 + i,
        });
      }
      await client.flush();
      expect(client.stats()).toMatchObject({ sent: 0, spilled: 20, dropped: 0 });
      expect(warnings.join('\n')).toContain('HTTP 503');
      expect(await metered()).toBe(accepted);
      expect(await claimed()).toBe(accepted);

      const restarted = script(['restart', dir]);
      expect(restarted.code, restarted.stderr).toBe(0);
      // The producer finds the broker again on its own; each look is one replay attempt.
      for (let look = 1; client.stats().replayed < 20; look++) {
        if (look > 60) throw new Error(`not replayed: ${warnings.slice(-3).join('\n')}`);
        await client.flush();
        if (client.stats().replayed < 20) await new Promise((r) => setTimeout(r, 1_000));
      }
      expect(client.stats()).toMatchObject({ sent: 20, replayed: 20, dropped: 0 });
      accepted += 20;
    } finally {
      await client.close();
      rmSync(spill, { recursive: true, force: true });
    }
    const worker = await startWorker();
    try {
      await foldedToTheEnd(worker);
      // Nothing lost, nothing doubled: each replayed event metered, stored and folded once.
      expect(await metered()).toBe(accepted);
      expect(await claimed()).toBe(accepted);
      expect(await stored()).toBe(accepted);
      expect(await folded()).toBe(accepted);
    } finally {
      await stop(worker);
    }
  });
});

/** Waits until the killed worker's backend has ended (and so rolled its transaction back). */
async function gone(blocker: pg.Client, pid: number, worker: ArbiterProcess): Promise<void> {
  const deadline = Date.now() + STUCK_MS;
  for (;;) {
    const { rowCount } = await blocker.query('select 1 from pg_stat_activity where pid = $1', [
      pid,
    ]);
    if (rowCount === 0) return;
    if (Date.now() > deadline) throw new Error(await stuck(`backend ${pid} to end`, worker));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The fold's backend once it waits on the test's lock, and whether it stored a stretch first
 * (it holds a lock on `events` only after inserting into it); or 'all folded' when a fold
 * committed every message (`offsets` of them) before the test took its lock.
 */
async function waitingFold(
  blocker: pg.Client,
  offsets: number,
  worker: ArbiterProcess,
): Promise<{ pid: number; storedEvents: boolean } | 'all folded'> {
  const deadline = Date.now() + STUCK_MS;
  for (;;) {
    if (Date.now() > deadline) throw new Error(await stuck('a fold to wait on the lock', worker));
    // pg_stat_activity is read once per transaction and kept: without this, a fold that starts
    // waiting after the first look is never seen (the blocker's lock keeps a transaction open).
    await blocker.query('select pg_stat_clear_snapshot()');
    const { rows: found } = await blocker.query<{ pid: number; stored: boolean }>(
      `select a.pid, exists (select 1 from pg_locks l where l.pid = a.pid
          and l.relation = 'events'::regclass and l.mode = 'RowExclusiveLock') as stored
        from pg_stat_activity a
        where a.datname = current_database() and a.pid <> pg_backend_pid()
          and a.wait_event_type = 'Lock'`,
    );
    const first = found[0];
    if (first !== undefined) return { pid: first.pid, storedEvents: first.stored };
    if ((await inboxed()) === offsets) return 'all folded';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

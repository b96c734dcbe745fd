import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, rows } from '../../../apps/server/src/db/connect.ts';
import { shardAddress } from '../../../apps/server/src/db/shards/shard-address.ts';
import { exposuresForUsers } from '../../../apps/server/test/support/builders.ts';
import { freshDatabaseOn } from '../../../apps/server/test/support/database.ts';
import { type Harness, startHarness } from '../../../apps/server/test/support/harness.ts';
import {
  type StoppableCluster,
  startStoppableCluster,
} from '../../../apps/server/test/support/stoppable-cluster.ts';
import { type ArbiterProcess, end, startFoldWorker } from './support/arbiter-processes.ts';
import { killFoldBeforeCommit } from './support/fold-kill.ts';
import { kafkaCluster, startBroker } from './support/kafka-broker.ts';
import {
  endOffsets,
  envelopeCount,
  produceAgain,
  readTopic,
  type TopicMessage,
} from './support/topic-messages.ts';

/**
 * The Kafka event log over two shards (`ARBITER_KAFKA_BROKERS` with `ARBITER_SHARD_URLS`) on a
 * real broker and two PostgreSQL servers: shard 0 a database on the suite's server, shard 1 a
 * database on a server of this file's own, which it stops and starts. The API process (this
 * test's app) claims, meters and produces; fold workers are `arbiter serve` processes that
 * store each event on its user's shard. Every accepted event lands once on its own shard and is
 * folded there, through a fold killed on one shard before its commit, a message on the topic
 * twice, a manual run right after the 202s, and a shard that is down while events arrive.
 */
const topic = `arbiter.shards.${randomBytes(3).toString('hex')}`;
let dir = '';
let brokers = '';
let own: StoppableCluster | undefined;
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let exp = '';
const shardUrls: string[] = [];
const workers: ArbiterProcess[] = [];
/** Events of the org accepted so far, each once: what every count below must reach. */
let accepted = 0;
/** Whether the own server (shard 1) is stopped. */
let down = false;

beforeAll(async () => {
  if (process.env.ARBITER_TEST_DB !== 'postgres' || !process.env.ARBITER_TEST_DATABASE_URL)
    throw new Error('run through scripts/test-suites/scale-out.sh (a PostgreSQL server)');
  ({ dir, brokers } = await startBroker('arbiter-kafka-shards-', topic, PARTITIONS));
  own = await startStoppableCluster();
  const onShared = await freshDatabaseOn(process.env.ARBITER_TEST_DATABASE_URL);
  const onOwn = await freshDatabaseOn(own.url);
  for (const handle of [onShared, onOwn]) shardUrls.push(handle.url as string);
  h = await startHarness(
    { ARBITER_KAFKA_BROKERS: brokers, ARBITER_KAFKA_TOPIC: topic, ARBITER_INGEST_WORKER: 'false' },
    {
      shards: [onShared, onOwn].map((handle) => ({
        handle,
        address: shardAddress(handle.url as string),
      })),
    },
  );
  org = await h.org('kafka-shards');
  exp = await h.experiment(org.admin, { name: 'kafka-shards-exp', metrics: [] });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => end(w, 'SIGTERM')));
  // The harness drops the shards' databases: the own server must be up for that.
  if (down) own?.start();
  await h?.close();
  own?.remove();
  if (dir !== '') kafkaCluster(['stop', dir]);
  rmSync(dir, { recursive: true, force: true });
});

const shard = (position: number) => h.ctx.shards.all[position]?.db as Database;

async function count(db: Database, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await rows<{ n: number | string }>(db, query);
  return Number(row?.n ?? 0);
}
/** Events of the org a shard holds, and how many distinct ids (equal unless one is doubled). */
const storedOn = (p: number) =>
  count(shard(p), sql`select count(*) as n from events where org_id = ${org.orgId}::uuid`);
/** Exposures folded on a shard (its database is this file's own: every experiment is the org's). */
const foldedOn = (p: number) =>
  count(shard(p), sql`select coalesce(sum(exposures), 0) as n from user_day_stats`);
const inboxOn = (p: number) =>
  count(
    shard(p),
    sql`select coalesce(sum(next_offset), 0) as n from ingest_inbox where topic = ${topic}`,
  );
/** Of the org's stored events, those whose user hashes to another shard than the one holding them. */
async function misplaced(): Promise<number> {
  let wrong = 0;
  for (const p of [0, 1]) {
    const held = await rows<{ user_id: string }>(
      shard(p),
      sql`select user_id from events where org_id = ${org.orgId}::uuid`,
    );
    wrong += held.filter((r) => h.ctx.shards.positionOf(org.orgId, r.user_id) !== p).length;
  }
  return wrong;
}
const metered = () =>
  count(
    h.ctx.db,
    sql`select coalesce(sum(events), 0) as n from usage_counters where org_id = ${org.orgId}::uuid`,
  );
const inControl = () =>
  count(h.ctx.db, sql`select count(*) as n from events where org_id = ${org.orgId}::uuid`);

const topicEnd = async () => Number(await endOffsets(brokers, topic));
/** The topic's partitions, and the messages produced so far (an envelope per request and partition). */
const PARTITIONS = 2;
let produced = 0;

/** Expected per shard: the accepted events whose user hashes there. */
const expectedOn = new Map<number, number>([
  [0, 0],
  [1, 0],
]);

/** Sends a batch of exposures, one per user, and counts what it accepted on each shard. */
async function accept(prefix: string, users: number, experiment = exp) {
  const events = exposuresForUsers(experiment, users, {
    prefix,
    userOf: (i) => `${prefix}-user-${i}`,
  });
  const res = await h.ingest(org.secret, {
    method: 'POST',
    url: '/v1/events',
    payload: { events },
  });
  expect(res.statusCode, res.body).toBe(202);
  expect(res.json()).toMatchObject({ accepted: users, duplicates: 0 });
  for (const e of events) {
    const p = h.ctx.shards.positionOf(org.orgId, e.user_id);
    expectedOn.set(p, (expectedOn.get(p) ?? 0) + 1);
  }
  accepted += users;
  produced += envelopeCount(org.orgId, events, PARTITIONS);
  return events;
}

/** Polls (no deadline: the suite's timeout ends a stuck test) until `done` holds. */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 200));
}

/** Until every shard holds and folded exactly its expected events, and read the topic to its end. */
async function landedEverywhere(): Promise<void> {
  const end = await topicEnd();
  await until(async () => {
    const [s0, s1, f0, f1, i0, i1] = await Promise.all([
      storedOn(0),
      storedOn(1),
      foldedOn(0),
      foldedOn(1),
      inboxOn(0),
      inboxOn(1),
    ]);
    return (
      s0 === expectedOn.get(0) &&
      s1 === expectedOn.get(1) &&
      f0 === s0 &&
      f1 === s1 &&
      i0 === end &&
      i1 === end
    );
  });
}

const worker = async (name: string) => {
  const started = await startFoldWorker(
    { databaseUrl: h.databaseUrl ?? '', brokers, topic, shardUrls },
    name,
  );
  workers.push(started);
  return started;
};

/** Exactly once, everywhere: each shard its own users' events, folded, nothing in the control database. */
async function exactlyOnce(): Promise<void> {
  expect([await storedOn(0), await storedOn(1)]).toEqual([expectedOn.get(0), expectedOn.get(1)]);
  expect([await foldedOn(0), await foldedOn(1)]).toEqual([expectedOn.get(0), expectedOn.get(1)]);
  expect(await misplaced()).toBe(0);
  expect(await inControl()).toBe(0);
  expect(await metered()).toBe(accepted);
}

describe('the Kafka event log over two shards', () => {
  it('stores each event accepted with a 202 once, on its own shard, and folds it there', async () => {
    await accept('first', 40);
    // Acceptance claimed and metered in the control database and produced; it stored nothing.
    expect([await storedOn(0), await storedOn(1)]).toEqual([0, 0]);
    expect(await metered()).toBe(accepted);
    expect(expectedOn.get(0)).toBeGreaterThan(0);
    expect(expectedOn.get(1)).toBeGreaterThan(0);
    const first = await worker('arbiter-fold-ks-a');
    await landedEverywhere();
    await exactlyOnce();
    await end(first, 'SIGTERM');
  });

  it('a fold killed on one shard before its commit, and a message on the topic twice, store nothing twice', async () => {
    await accept('second', 30);
    // A message produced again (a client's retry after a lost commit): on the topic twice.
    const [again] = await readTopic(brokers, topic, 1);
    await produceAgain(brokers, topic, again as TopicMessage);
    expect(await topicEnd()).toBe(produced + 1);
    // The worker's fold on shard 1 is caught after storing its part and killed there; its fold
    // on shard 0 commits meanwhile, so the shards' inboxes part ways.
    const doomed = await worker('arbiter-fold-ks-b');
    await killFoldBeforeCommit(shardUrls[1] as string, 'arbiter-fold-ks-b', async () => {
      await end(doomed, 'SIGKILL');
    });
    expect(await inboxOn(1)).toBeLessThan(await topicEnd());
    // The next worker reads from the lower inbox: shard 0 skips what it has, shard 1 stores.
    await worker('arbiter-fold-ks-c');
    await landedEverywhere();
    await exactlyOnce();
  });

  it('a manual run right after the 202s counts every event the broker acknowledged', async () => {
    const runExp = await h.experiment(org.admin, { name: 'kafka-shards-run', metrics: [] });
    await accept('run', 60, runExp);
    const run = await h.call(org.admin, {
      method: 'POST',
      url: `/v1/experiments/${runExp}/analyze`,
    });
    expect(run.statusCode, run.body).toBe(200);
    const arms = run.json().arms as Record<string, { users: number }>;
    expect(Object.values(arms).reduce((sum, a) => sum + a.users, 0)).toBe(60);
    expect(await metered()).toBe(accepted);
  });

  it('a shard that is down loses no acknowledged event: they land once it is back, the other shard goes on', async () => {
    const before0 = expectedOn.get(0) ?? 0;
    own?.stop();
    down = true;
    await accept('down', 40);
    // 202s while the shard is down: the broker has them. Shard 0's part lands and folds.
    await until(async () => (await storedOn(0)) === expectedOn.get(0));
    expect(expectedOn.get(0)).toBeGreaterThan(before0);
    await until(async () => (await foldedOn(0)) === expectedOn.get(0));
    const health = await h.app.inject({
      method: 'GET',
      url: '/v1/admin/health',
      headers: { 'x-arbiter-control': h.ctx.controlToken },
    });
    const shards = health.json().shards as Array<{ position: number; reachable: boolean }>;
    expect(shards.map((s) => [s.position, s.reachable])).toEqual([
      [0, true],
      [1, false],
    ]);
    own?.start();
    down = false;
    await landedEverywhere();
    await exactlyOnce();
    expect(await h.ctx.eventLog.depth()).toBe(0);
  });
});

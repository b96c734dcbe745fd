import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../apps/server/src/db/connect.ts';
import { envelopes } from '../../../apps/server/src/ingest/kafka/batch-producer.ts';
import { type Harness, startHarness } from '../../../apps/server/test/support/harness.ts';
import { type ArbiterProcess, end, startFoldWorker } from './support/arbiter-processes.ts';
import { cappedOrg } from './support/capped-org.ts';
import { kafkaCluster, startBroker } from './support/kafka-broker.ts';
import { produceAgain, readTopic, endOffsets as topicEnd } from './support/topic-messages.ts';

/**
 * The Kafka path with de-duplication and metering at the fold (`ARBITER_KAFKA_METERING=fold`)
 * on a real broker and PostgreSQL server: an acceptance claims nothing and meters nothing, the
 * fold stores each id once and meters exactly what it stored, an envelope claimed at
 * acceptance (produced before the setting changed) is not metered again, and an enforced
 * allowance is cut against the meter the folds committed.
 */
const topic = `arbiter.events.${randomBytes(3).toString('hex')}`;
let dir = '';
let brokers = '';
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId = '';
let worker: ArbiterProcess | undefined;

beforeAll(async () => {
  if (process.env.ARBITER_TEST_DB !== 'postgres')
    throw new Error('run through scripts/test-suites/scale-out.sh (a PostgreSQL server)');
  ({ dir, brokers } = await startBroker('arbiter-kafka-fold-metering-', topic, 2));
  h = await startHarness({
    ARBITER_KAFKA_BROKERS: brokers,
    ARBITER_KAFKA_TOPIC: topic,
    ARBITER_KAFKA_METERING: 'fold',
    ARBITER_INGEST_WORKER: 'false',
    ARBITER_ENFORCE_LIMITS: 'true',
  });
  org = await h.org('kafka-fold-metering');
  experimentId = await h.experiment(org.admin, { name: 'kafka-fold-metering-exp' });
});
afterAll(async () => {
  if (worker !== undefined) await end(worker, 'SIGTERM');
  await h?.close();
  kafkaCluster(['stop', dir]);
  rmSync(dir, { recursive: true, force: true });
});

const call = (id: string, user: string, latency = 100) => ({
  event_id: id,
  type: 'model_call',
  experiment_id: experimentId,
  user_id: user,
  variant: 'control',
  timestamp: new Date().toISOString(),
  latency_ms: latency,
});
const batch = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => call(`${prefix}-${i}`, `user-${i % 4}`));
const send = (secret: string, events: unknown[]) =>
  h.ingest(secret, { method: 'POST', url: '/v1/events', payload: { events } });

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await rows<{ n: number | string }>(h.ctx.db, query);
  return Number(row?.n ?? 0);
}
const metered = (orgId: string) =>
  count(
    sql`select coalesce(sum(events), 0) as n from usage_counters where org_id = ${orgId}::uuid`,
  );
const stored = (orgId: string) =>
  count(sql`select count(*) as n from events where org_id = ${orgId}::uuid`);
const claimed = (orgId: string) =>
  count(sql`select count(*) as n from event_claims where org_id = ${orgId}::uuid`);
const latencyOf = (id: string) =>
  count(
    sql`select latency_ms as n from events where org_id = ${org.orgId}::uuid and event_id = ${id}`,
  );

/** Folds everything on the topic (a fold worker of its own, started once). */
async function foldAll(): Promise<void> {
  worker ??= await startFoldWorker(
    { databaseUrl: h.databaseUrl ?? '', brokers, topic, metering: 'fold' },
    'arbiter-fold',
  );
  for (let look = 0; (await h.ctx.eventLog.depth()) > 0; look++) {
    if (look > 600) throw new Error(`not folded: ${worker.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the Kafka log metered at the fold', () => {
  /** The first batch as sent, sent again as a client's retry sends it. */
  let first: ReturnType<typeof batch> = [];

  it('answers 202 once the events are on the topic, marked for the fold, with nothing claimed or metered', async () => {
    first = batch('first', 10);
    const res = await send(org.secret, first);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 10, duplicates: 0, conflicts: 0 });
    const messages = await readTopic(brokers, topic, Number(await topicEnd(brokers, topic)));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(JSON.parse(m.value).meter_at_fold).toBe(true);
    expect(await claimed(org.orgId)).toBe(0);
    expect(await metered(org.orgId)).toBe(0);
  });

  it('meters at the fold exactly what it stored: a batch sent again, a repeat and a reused id count once', async () => {
    const again = await send(org.secret, first);
    expect(again.statusCode, again.body).toBe(202);
    // Nothing tells the acceptance that these were sent before: all ten are produced again.
    expect(again.json()).toMatchObject({ accepted: 10, duplicates: 0 });
    const repeat = call('second-0', 'user-1');
    const reused = call('first-0', 'user-0', 999);
    const mixed = await send(org.secret, [repeat, repeat, reused]);
    expect(mixed.statusCode, mixed.body).toBe(202);
    expect(mixed.json()).toMatchObject({ accepted: 3, duplicates: 1 });
    await foldAll();
    expect(await stored(org.orgId)).toBe(11);
    expect(await metered(org.orgId)).toBe(11);
    // The first copy of a reused id stands.
    expect(await latencyOf('first-0')).toBe(100);
  });

  it('does not meter again an envelope claimed and metered at acceptance', async () => {
    // Three accepted events as the API produced them, under new ids, in an envelope without
    // the mark: what an API process metering at acceptance sends.
    const [read] = await readTopic(brokers, topic, 1);
    const accepted = JSON.parse(read?.value ?? '{}').events.slice(0, 1)[0];
    const claimedEvents = ['claimed-0', 'claimed-1', 'claimed-2'].map((id) => ({
      ...accepted,
      event_id: id,
    }));
    const [envelope] = envelopes(org.orgId, claimedEvents);
    expect(JSON.parse(envelope?.value ?? '{}').meter_at_fold).toBeUndefined();
    await produceAgain(brokers, topic, {
      key: `${org.orgId}:${accepted.user_id}`,
      value: envelope?.value ?? '',
    });
    expect((await send(org.secret, batch('marked', 2))).statusCode).toBe(202);
    await foldAll();
    expect(await stored(org.orgId)).toBe(16);
    expect(await metered(org.orgId)).toBe(13);
  });

  it("cuts a batch at the allowance against the folds' committed meter", async () => {
    const capped = await cappedOrg(h, 'kafka-fold-capped', 49_998);
    const { exposure } = capped;
    const partial = await send(capped.secret, [
      exposure('cap-1'),
      exposure('cap-2'),
      exposure('cap-3'),
    ]);
    expect(partial.statusCode, partial.body).toBe(202);
    expect(partial.json().accepted).toBe(2);
    expect(partial.json().rejected[0].index).toBe(2);
    await foldAll();
    expect(await metered(capped.orgId)).toBe(50_000);
    const refused = await send(capped.secret, [exposure('cap-4')]);
    expect(refused.statusCode).toBe(429);
    expect(await stored(capped.orgId)).toBe(2);
  });
});

import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Admin } from '@platformatic/kafka';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJudgeJob } from '../../../apps/server/src/analysis/judge/judge-job.ts';
import { purgeExpiredEvents } from '../../../apps/server/src/analysis/retention/retention.ts';
import { rows } from '../../../apps/server/src/db/connect.ts';
import { type Harness, startHarness } from '../../../apps/server/test/support/harness.ts';
import {
  createJudgeExperiment,
  setPlan,
} from '../../../apps/server/test/support/judge-fixtures.ts';
import {
  type ChatRequest,
  type FakeJudgeServer,
  startFakeJudge,
} from '../../../apps/server/test/support/judge-server.ts';
import { readTopic } from './support/topic-messages.ts';

/**
 * Model text in object storage (`ARBITER_BLOB_URL`) on a real S3 server process
 * (scripts/s3-server.sh, versitygw), a real Kafka broker and a real PostgreSQL server: a
 * 900 KiB prompt leaves a message under 64 KiB on the log, sits in the store, and comes back
 * byte-identical to the judge and the raw-event export; a store that is down is a 503 that
 * accepts nothing; retention deletes the store's expired days.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KEYS = { AWS_ACCESS_KEY_ID: 'arbiter', AWS_SECRET_ACCESS_KEY: 'arbiter-secret' };
const bucket = `arbiter-text-${randomBytes(3).toString('hex')}`;
const topic = `arbiter.events.${randomBytes(3).toString('hex')}`;
const DAY_MS = 86_400_000;

function script(name: string, args: string[]) {
  const result = spawnSync('bash', [join(ROOT, 'scripts', name), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...KEYS },
  });
  expect(result.status, `${name} ${args[0]}: ${result.stderr}`).toBe(0);
  return result.stdout.trim().split('\n').at(-1) ?? '';
}

/** 900 KiB of UTF-8 exactly, with two-byte and four-byte characters (a surrogate pair) in it. */
function bigPrompt(): string {
  const line = 'Explain ünïcode 🚀 to me, line by line, and keep every byte.\n';
  let text = line.repeat(Math.floor((900 * 1024) / Buffer.byteLength(line)));
  text += 'x'.repeat(900 * 1024 - Buffer.byteLength(text));
  return text;
}
const PROMPT = bigPrompt();
const RESPONSE = 'quality=0.8 — the answer, with ✓ and 🚀';

let s3Dir = '';
let kafkaDir = '';
let endpoint = '';
let brokers: string[] = [];
let h: Harness;
let judge: FakeJudgeServer;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId = '';
const s3 = () =>
  new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: {
      accessKeyId: KEYS.AWS_ACCESS_KEY_ID,
      secretAccessKey: KEYS.AWS_SECRET_ACCESS_KEY,
    },
  });

beforeAll(async () => {
  if (process.env.ARBITER_TEST_DB !== 'postgres')
    throw new Error('run through scripts/test-suites/scale-out.sh (a PostgreSQL server)');
  s3Dir = mkdtempSync(join(tmpdir(), 'arbiter-blob-s3-'));
  kafkaDir = mkdtempSync(join(tmpdir(), 'arbiter-blob-kafka-'));
  endpoint = script('s3-server.sh', ['start', s3Dir]);
  brokers = script('kafka-cluster.sh', ['start', '1', kafkaDir]).split(',');
  const admin = new Admin({ clientId: 'arbiter-test', bootstrapBrokers: brokers });
  await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 });
  await admin.close();
  judge = await startFakeJudge();
  judge.answer = () => ({ content: '{"score": 0.8}' });
  // The bucket does not exist yet: the server creates it with its first text.
  h = await startHarness({
    ARBITER_BLOB_URL: `s3://${bucket}/model-text`,
    ARBITER_BLOB_ENDPOINT: endpoint,
    ...KEYS,
    AWS_REGION: 'us-east-1',
    ARBITER_KAFKA_BROKERS: brokers.join(','),
    ARBITER_KAFKA_TOPIC: topic,
    ARBITER_INGEST_WORKER: 'true',
    ARBITER_JUDGE_BASE_URL: judge.baseUrl,
    ARBITER_JUDGE_MODEL: 'grader-1',
  });
  org = await h.org('blob-store');
  await setPlan(h, org.orgId, 'pro');
  experimentId = await createJudgeExperiment(h, org.admin, 'blob-store-exp');
});
afterAll(async () => {
  await h?.close();
  await judge?.close();
  if (s3Dir !== '') spawnSync('bash', [join(ROOT, 'scripts/s3-server.sh'), 'stop', s3Dir]);
  if (kafkaDir !== '')
    spawnSync('bash', [join(ROOT, 'scripts/kafka-cluster.sh'), 'stop', kafkaDir]);
  rmSync(s3Dir, { recursive: true, force: true });
  rmSync(kafkaDir, { recursive: true, force: true });
});

const today = () => new Date().toISOString().slice(0, 10);
const call = (id: string, prompt: string, response: string) => ({
  event_id: id,
  type: 'model_call',
  experiment_id: experimentId,
  user_id: 'user-1',
  variant: 'control',
  timestamp: new Date().toISOString(),
  latency_ms: 120,
  prompt,
  response,
});
const send = (harness: Harness, secret: string, events: unknown[]) =>
  harness.ingest(secret, { method: 'POST', url: '/v1/events', payload: { events } });
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await rows<{ n: number | string }>(h.ctx.db, query);
  return Number(row?.n ?? 0);
}
const stored = () => count(sql`select count(*) as n from events where org_id = ${org.orgId}::uuid`);
const metered = () =>
  count(
    sql`select coalesce(sum(events), 0) as n from usage_counters where org_id = ${org.orgId}::uuid`,
  );

/** Folds until `n` events of the org are stored (the consumer's first join takes a moment). */
async function foldUntilStored(n: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await stored()) < n) {
    if (Date.now() > deadline) throw new Error(`stuck: ${await stored()} of ${n} stored`);
    try {
      await h.ctx.worker.foldAll();
    } catch {
      // a refused first join of the consumer group: the next fold starts a new client
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key ?? '');
}

describe('model text in object storage', () => {
  let key = '';
  let bigEvent: ReturnType<typeof call> | undefined;

  it('takes a 900 KiB prompt: the log message stays under 64 KiB, the text is in the store', async () => {
    expect(Buffer.byteLength(PROMPT)).toBe(900 * 1024);
    bigEvent = call('big-1', PROMPT, RESPONSE);
    const res = await send(h, org.secret, [bigEvent]);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 1, rejected: [] });

    const [{ value = '' } = {}] = await readTopic(brokers.join(','), topic, 1);
    expect(Buffer.byteLength(value)).toBeLessThan(64 * 1024);
    const [event] = JSON.parse(value).events;
    expect(event.prompt).toBeUndefined();
    expect(event.response).toBeUndefined();
    expect(event).toMatchObject({
      prompt_bytes: 900 * 1024,
      response_bytes: Buffer.byteLength(RESPONSE),
    });
    key = event.text_key;
    const day = event.timestamp.slice(0, 10);
    expect(key.startsWith(`model-text/${org.orgId}/${day}/`)).toBe(true);

    // The object is the prompt's bytes then the response's, under the SHA-256 the event names.
    const got = await s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = await got.Body?.transformToByteArray();
    const expected = Buffer.concat([Buffer.from(PROMPT), Buffer.from(RESPONSE)]);
    expect(Buffer.from(body ?? []).equals(expected)).toBe(true);
    expect(event.text_sha256).toBe(sha(expected));
  });

  it('acknowledges the same event sent again (a lost 202) as a duplicate, not a conflict', async () => {
    const res = await send(h, org.secret, [bigEvent]);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ accepted: 1, duplicates: 1, conflicts: 0 });
    expect(await metered()).toBe(1);
  });

  it('stores the row with the reference and no text; the export reads the text back byte-identical', async () => {
    await foldUntilStored(1);
    const [row] = await rows<Record<string, unknown>>(
      h.ctx.db,
      sql`select prompt, response, text_key, prompt_bytes, response_bytes from events
        where org_id = ${org.orgId}::uuid and event_id = 'big-1'`,
    );
    expect(row).toMatchObject({ prompt: null, response: null, text_key: key });
    const res = await h.ingest(org.secret, {
      method: 'GET',
      url: `/v1/events/export?experiment=${experimentId}&day=${today()}`,
    });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    const lines = res.body.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}');
    expect(sha(line.prompt)).toBe(sha(PROMPT));
    expect(line.prompt === PROMPT).toBe(true);
    expect(line.response).toBe(RESPONSE);
    expect(line.text_key).toBeUndefined();
  });

  it('gives the judge the text byte-identical', async () => {
    judge.requests.length = 0;
    const [result] = await runJudgeJob(h.ctx, h.ctx.judge!, { experimentId, now: new Date() });
    expect(result).toMatchObject({ scored: 1, failed: 0 });
    const user = (judge.requests[0] as ChatRequest).body.messages.find((m) => m.role === 'user');
    const graded = /^<prompt>\n([\s\S]*)\n<\/prompt>\n\n<response>\n([\s\S]*)\n<\/response>$/.exec(
      user?.content ?? '',
    );
    expect(graded?.[1] === PROMPT).toBe(true);
    expect(graded?.[2]).toBe(RESPONSE);
  });

  it('refuses text over 200,000 characters with 400 when no store is configured', async () => {
    const plain = await startHarness({});
    try {
      const other = await plain.org('no-store');
      const exp = await plain.experiment(other.admin, { name: 'no-store-exp' });
      const res = await send(plain, other.secret, [
        { ...call('long-1', 'y'.repeat(200_001), 'r'), experiment_id: exp },
      ]);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body).toContain('prompt');
    } finally {
      await plain.close();
    }
  });

  it('works the same on the database log: the COPY path stores the reference', async () => {
    const single = await startHarness({
      ARBITER_BLOB_URL: `s3://${bucket}/single`,
      ARBITER_BLOB_ENDPOINT: endpoint,
      ...KEYS,
    });
    try {
      const other = await single.org('single-log');
      const exp = await single.experiment(other.admin, { name: 'single-log-exp' });
      const event = { ...call('single-1', PROMPT, RESPONSE), experiment_id: exp };
      const res = await send(single, other.secret, [event]);
      expect(res.statusCode, res.body).toBe(202);
      const [row] = await rows<Record<string, unknown>>(
        single.ctx.db,
        sql`select prompt, text_key, prompt_bytes from events where event_id = 'single-1'`,
      );
      expect(row).toMatchObject({ prompt: null, prompt_bytes: 900 * 1024 });
      expect(String(row?.text_key)).toMatch(new RegExp(`^single/${other.orgId}/`));
      const exported = await single.ingest(other.secret, {
        method: 'GET',
        url: `/v1/events/export?experiment=${exp}&day=${today()}`,
      });
      expect(JSON.parse(exported.body).prompt === PROMPT).toBe(true);
    } finally {
      await single.close();
    }
  });

  it("deletes the store's days past the plan's retention with the events", async () => {
    const purged = await purgeExpiredEvents(h.ctx, new Date(Date.now() + 400 * DAY_MS));
    expect(purged).toBeGreaterThanOrEqual(1);
    expect(await stored()).toBe(0);
    expect(await keysUnder(`model-text/${org.orgId}/`)).toEqual([]);
  });

  it('answers 503 with Retry-After and accepts nothing while the store is down', async () => {
    const before = await metered();
    script('s3-server.sh', ['stop', s3Dir]);
    const res = await send(h, org.secret, [call('down-1', 'a prompt', 'a response')]);
    expect(res.statusCode, res.body).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json().type).toMatch(/\/problems\/model-text-unavailable$/);
    expect(await metered()).toBe(before);
    expect(await count(sql`select count(*) as n from event_claims where event_id = 'down-1'`)).toBe(
      0,
    );
    // A batch without model text does not need the store and is still taken.
    const exposure = {
      event_id: 'exp-1',
      type: 'exposure',
      experiment_id: experimentId,
      user_id: 'user-2',
      timestamp: new Date().toISOString(),
    };
    expect((await send(h, org.secret, [exposure])).statusCode).toBe(202);
  });
});

import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  Admin,
  Consumer,
  ProduceAcks,
  Producer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The set-up scripts the scale-out tests and users share: scripts/kafka-cluster.sh (KRaft
 * nodes from Kafka's jars) and scripts/s3-server.sh (versitygw over a directory), each started
 * for real and used through the clients Arbiter uses (@platformatic/kafka, the AWS SDK).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function script(name: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync('bash', [join(ROOT, 'scripts', name), ...args], {
    encoding: 'utf8',
    env,
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

function started(name: string, args: string[], env?: NodeJS.ProcessEnv): string {
  const result = script(name, ['start', ...args], env);
  expect(result.code, `${name} start: ${result.stderr}`).toBe(0);
  return result.stdout.split('\n').at(-1) ?? '';
}

type Message = { topic: string; partition: number; key: string; value: string };

/**
 * The partitions a killed node led move once the controller misses its heartbeats
 * (broker.session.timeout.ms, 9 s). @platformatic/kafka retries a send against the leader it
 * knew, so a failed send is sent again after a fresh look at the cluster's metadata, and only
 * its partitions that were not acknowledged: sending the acknowledged ones again would append
 * them again under new sequence numbers (the idempotent producer only recognises a retry of
 * the same sequence, which a failed partition keeps).
 */
async function sendThroughFailover(
  producer: Producer<string, string, string, string>,
  messages: Message[],
): Promise<void> {
  let left = messages;
  for (let attempt = 1; left.length > 0; attempt++) {
    try {
      await producer.send({ messages: left });
      return;
    } catch (error) {
      if (attempt >= 60) throw error;
      const produced = (error as { produced?: { offsets?: Array<{ partition: number }> } })
        .produced;
      const done = new Set((produced?.offsets ?? []).map((o) => o.partition));
      left = left.filter((m) => !done.has(m.partition));
      producer.clearMetadata();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

// Running: it answers kill -0 and is not a zombie (a zombie answers until its parent reaps
// it, but it runs nothing and holds no port).
const alive = (pid: number) => {
  if (spawnSync('kill', ['-0', String(pid)]).status !== 0) return false;
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const pidOf = (file: string) => Number(readFileSync(file, 'utf8').trim());

describe('scripts/kafka-cluster.sh with three nodes', () => {
  let dir = '';
  let bootstrap: string[] = [];
  const topic = `arbiter.test.${randomBytes(3).toString('hex')}`;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'arbiter-kafka-'));
    bootstrap = started('kafka-cluster.sh', ['3', dir]).split(',');
  });
  afterAll(() => {
    script('kafka-cluster.sh', ['stop', dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the bootstrap list last: one loopback address per node, each with a pid file', () => {
    expect(bootstrap).toHaveLength(3);
    for (const address of bootstrap) expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(new Set(bootstrap).size).toBe(3);
    const pids = [1, 2, 3].map((i) => pidOf(join(dir, `broker-${i}.pid`)));
    for (const pid of pids) expect(alive(pid)).toBe(true);
  });

  it('forms one cluster: every node knows the other two', async () => {
    const admin = new Admin({ clientId: 'arbiter-test', bootstrapBrokers: bootstrap });
    try {
      const metadata = await admin.metadata({ topics: [] });
      expect([...metadata.brokers.keys()].sort()).toEqual([1, 2, 3]);
    } finally {
      await admin.close();
    }
  });

  it('keeps acknowledging idempotent acks=all writes with a node killed, and loses none', async () => {
    const admin = new Admin({ clientId: 'arbiter-test', bootstrapBrokers: bootstrap });
    await admin.createTopics({ topics: [topic], partitions: 3, replicas: 3 });
    await admin.close();
    const producer = new Producer({
      clientId: 'arbiter-test',
      bootstrapBrokers: bootstrap,
      serializers: stringSerializers,
      idempotent: true,
      acks: ProduceAcks.ALL,
      retries: 3,
      retryDelay: 250,
    });
    // Partitions are chosen here, so a failed send knows which of its messages went where.
    const batch = (from: number): Message[] =>
      Array.from({ length: 50 }, (_, i) => ({
        topic,
        partition: (from + i) % 3,
        key: `org-1:user-${from + i}`,
        value: `event-${from + i}`,
      }));
    try {
      await producer.send({ messages: batch(0) });
      // A node dies without a word: the two left still make min.insync.replicas (2).
      spawnSync('kill', ['-9', String(pidOf(join(dir, 'broker-3.pid')))]);
      await sendThroughFailover(producer, batch(50));
    } finally {
      await producer.close();
    }

    // Every acknowledged message is on the log once: the partitions' end offsets add up to
    // the 100 sent (a lost one would make it less, a doubled retry more). Read without a
    // consumer group, whose offsets topic wants all three replicas when it is first made.
    const reader = new Consumer({
      clientId: 'arbiter-test',
      groupId: `arbiter-test-${topic}`,
      bootstrapBrokers: bootstrap.slice(0, 2),
      deserializers: stringDeserializers,
    });
    try {
      const ends = (await reader.listOffsets({ topics: [topic] })).get(topic) ?? [];
      expect(ends).toHaveLength(3);
      expect(ends.reduce((sum, end) => sum + end, 0n)).toBe(100n);
    } finally {
      await reader.close(true);
    }
  });

  it('restart brings the killed node back on its port and data, and prints the same list', async () => {
    const before = [1, 2].map((i) => pidOf(join(dir, `broker-${i}.pid`)));
    const result = script('kafka-cluster.sh', ['restart', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n').at(-1)).toBe(bootstrap.join(','));
    // The running nodes are left alone; only the killed one is a new process.
    expect([1, 2].map((i) => pidOf(join(dir, `broker-${i}.pid`)))).toEqual(before);
    expect(alive(pidOf(join(dir, 'broker-3.pid')))).toBe(true);
    const admin = new Admin({ clientId: 'arbiter-test', bootstrapBrokers: [bootstrap[2] ?? ''] });
    try {
      // Asked of the restarted node itself: it is back in the cluster and knows the topic.
      const metadata = await admin.metadata({ topics: [topic] });
      expect([...metadata.brokers.keys()].sort()).toEqual([1, 2, 3]);
      expect(metadata.topics.get(topic)?.partitionsCount).toBe(3);
    } finally {
      await admin.close();
    }
  });

  it('refuses to restart a folder no cluster was started in', () => {
    const empty = mkdtempSync(join(tmpdir(), 'arbiter-kafka-empty-'));
    try {
      const result = script('kafka-cluster.sh', ['restart', empty]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('holds no cluster');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('stops every node and removes the pid files', () => {
    const pids = [1, 2, 3].map((i) => pidOf(join(dir, `broker-${i}.pid`)));
    expect(script('kafka-cluster.sh', ['stop', dir]).code).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.pid'))).toEqual([]);
  });

  it('refuses a wrong command line with its usage', () => {
    const result = script('kafka-cluster.sh', ['start', 'three', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage:');
  });
});

describe('scripts/s3-server.sh', () => {
  let dir = '';
  const credentials = {
    accessKeyId: 'arbiter-test',
    secretAccessKey: randomBytes(12).toString('hex'),
  };
  let endpoint = '';
  const client = () =>
    new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'arbiter-s3-'));
    endpoint = started('s3-server.sh', [dir], {
      ...process.env,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
  });
  afterAll(() => {
    script('s3-server.sh', ['stop', dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints its endpoint last and starts with no bucket', async () => {
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listed = await client().send(new ListBucketsCommand({}));
    expect(listed.Buckets ?? []).toEqual([]);
  });

  it('stores a 900 KiB text and gives back the same bytes', async () => {
    const s3 = client();
    await s3.send(new CreateBucketCommand({ Bucket: 'arbiter-test' }));
    const text = randomBytes(900 * 1024 * 0.75).toString('base64');
    await s3.send(new PutObjectCommand({ Bucket: 'arbiter-test', Key: 'a/b.txt', Body: text }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'arbiter-test', Key: 'a/b.txt' }));
    const back = await got.Body?.transformToString('utf8');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(back?.length).toBe(900 * 1024);
    expect(sha(back ?? '')).toBe(sha(text));
    // A real server process keeps it on disk, under DIR/data.
    expect(existsSync(join(dir, 'data', 'arbiter-test'))).toBe(true);
  });

  it('refuses a request signed with other credentials', async () => {
    const stranger = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    await expect(stranger.send(new ListBucketsCommand({}))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 403 },
    });
  });

  it('stops the process and removes its pid file', () => {
    const pid = pidOf(join(dir, 's3.pid'));
    expect(script('s3-server.sh', ['stop', dir]).code).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(dir, 's3.pid'))).toBe(false);
  });
});

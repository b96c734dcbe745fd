import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin } from '@platformatic/kafka';
import { type RunningServer, startServer } from '../../apps/server/test/support/process.ts';
import { startBenchServer } from '../server/setup.ts';
import { freshDatabase, type Infrastructure } from './infrastructure.ts';

/** What one measured deployment runs: the single node, or the Kafka path's processes. */
export interface Shape {
  kafka: boolean;
  objectStore: boolean;
  /** API processes (the single node has one, which also folds). */
  apis: number;
  partitions: number;
  foldWorkers: number;
  /** The Kafka path with de-duplication and metering at the fold (ARBITER_KAFKA_METERING=fold). */
  meteredAtFold?: boolean;
}

export interface Deployment {
  urls: string[];
  key: string;
  experimentId: string;
  databaseUrl: string;
  /** The root pids of each component's process trees. */
  roots: Record<string, number[]>;
  /** The bucket's directory on the S3 server, when the object store is on. */
  bucket: string | null;
  /** The Kafka topic, on the Kafka path. */
  topic: string | null;
  stop(): Promise<void>;
}

async function createTopic(brokers: string, partitions: number): Promise<string> {
  const topic = `arbiter.capacity.${randomBytes(3).toString('hex')}`;
  const admin = new Admin({ clientId: 'arbiter-capacity', bootstrapBrokers: brokers.split(',') });
  await admin.createTopics({ topics: [topic], partitions, replicas: brokers.split(',').length });
  await admin.close();
  return topic;
}

/** The settings every process of the deployment shares. */
async function sharedEnv(shape: Shape, infra: Infrastructure) {
  const env: Record<string, string> = { ARBITER_SCHEDULER: 'false' };
  let bucket: string | null = null;
  if (shape.objectStore) {
    bucket = `capacity-${randomBytes(3).toString('hex')}`;
    Object.assign(env, {
      ARBITER_BLOB_URL: `s3://${bucket}/model-text`,
      ARBITER_BLOB_ENDPOINT: infra.blobEndpoint,
      AWS_ACCESS_KEY_ID: 'arbiter',
      AWS_SECRET_ACCESS_KEY: 'arbiter-secret',
    });
  }
  if (shape.kafka) {
    env.ARBITER_KAFKA_BROKERS = infra.kafkaBrokers;
    env.ARBITER_KAFKA_TOPIC = await createTopic(infra.kafkaBrokers, shape.partitions);
    env.ARBITER_INGEST_WORKER = 'false';
    if (shape.meteredAtFold === true) env.ARBITER_KAFKA_METERING = 'fold';
  }
  return { env, bucket };
}

/** Starts the shape's processes on a fresh database (and a fresh topic and bucket). */
export async function startDeployment(shape: Shape, infra: Infrastructure): Promise<Deployment> {
  const db = await freshDatabase(infra.postgresUrl);
  const { env, bucket } = await sharedEnv(shape, infra);
  const first = await startBenchServer(db.url, env);
  const extra: Array<{ role: 'api' | 'fold'; server: RunningServer; dir: string }> = [];
  const more = async (role: 'api' | 'fold') => {
    const dir = mkdtempSync(join(tmpdir(), `arbiter-capacity-${role}-`));
    const worker = role === 'fold' ? 'true' : 'false';
    const server = await startServer({
      ...first.env,
      ARBITER_DATA_DIR: dir,
      ARBITER_INGEST_WORKER: worker,
    });
    extra.push({ role, server, dir });
  };
  for (let i = 1; i < shape.apis; i++) await more('api');
  if (shape.kafka) for (let i = 0; i < shape.foldWorkers; i++) await more('fold');
  const pidsOf = (role: 'api' | 'fold') =>
    extra.filter((p) => p.role === role).map((p) => p.server.child.pid as number);
  const roots: Record<string, number[]> = {
    api: [first.server.child.pid as number, ...pidsOf('api')],
    postgres: [infra.postmasterPid],
  };
  if (shape.kafka) Object.assign(roots, { brokers: infra.brokerPids, fold: pidsOf('fold') });
  if (shape.objectStore) roots.objectStore = [infra.blobPid];
  return {
    urls: [first.server.url, ...extra.filter((p) => p.role === 'api').map((p) => p.server.url)],
    key: first.secretKey,
    experimentId: first.experimentId,
    databaseUrl: db.url,
    roots,
    bucket: bucket === null ? null : join(infra.blobDataDir, bucket),
    topic: env.ARBITER_KAFKA_TOPIC ?? null,
    async stop() {
      for (const p of extra) {
        p.server.child.kill('SIGTERM');
        await p.server.exited;
        rmSync(p.dir, { recursive: true, force: true });
      }
      await first.stop();
      await db.drop();
    },
  };
}

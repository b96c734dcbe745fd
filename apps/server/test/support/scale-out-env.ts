import { randomBytes } from 'node:crypto';
import { Admin } from '@platformatic/kafka';
import { TEST_DB } from './database.ts';

/**
 * The ingest suite's scale-out mode (scripts/test-suites/scale-out.sh runs it): when the test
 * environment names a Kafka cluster and an S3 server, every harness's app takes Kafka as its
 * event log and the S3 server as its model-text store, and both produces and consumes (its
 * ingest worker is on), so a test that posts events and reads what the fold made is unchanged.
 *
 *   ARBITER_TEST_KAFKA_BROKERS           the cluster's bootstrap list (host:port,...)
 *   ARBITER_TEST_BLOB_ENDPOINT           the S3 server's URL
 *   ARBITER_TEST_BLOB_ACCESS_KEY_ID      its key pair (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
 *   ARBITER_TEST_BLOB_SECRET_ACCESS_KEY  of the app)
 *
 * Each harness gets a topic of its own, made here before the app starts, and a bucket of its
 * own (the app makes it with its first text), so test files never see each other's messages
 * or objects. The Kafka log's fold needs concurrent transactions: the mode asks for
 * ARBITER_TEST_DB=postgres.
 */
export const SCALE_OUT_PARTITIONS = 2;

export function scaleOutMode(): boolean {
  return process.env.ARBITER_TEST_KAFKA_BROKERS !== undefined;
}

export async function scaleOutEnv(): Promise<Record<string, string>> {
  const brokers = process.env.ARBITER_TEST_KAFKA_BROKERS;
  if (brokers === undefined) return {};
  const endpoint = process.env.ARBITER_TEST_BLOB_ENDPOINT;
  const keyId = process.env.ARBITER_TEST_BLOB_ACCESS_KEY_ID;
  const secret = process.env.ARBITER_TEST_BLOB_SECRET_ACCESS_KEY;
  if (TEST_DB !== 'postgres' || !endpoint || !keyId || !secret)
    throw new Error(
      'ARBITER_TEST_KAFKA_BROKERS needs ARBITER_TEST_DB=postgres, ARBITER_TEST_BLOB_ENDPOINT, ARBITER_TEST_BLOB_ACCESS_KEY_ID and ARBITER_TEST_BLOB_SECRET_ACCESS_KEY (scripts/test-suites/scale-out.sh sets them)',
    );
  const own = randomBytes(4).toString('hex');
  const topic = `arbiter.test.${own}`;
  const admin = new Admin({ clientId: 'arbiter-test', bootstrapBrokers: brokers.split(',') });
  try {
    await admin.createTopics({ topics: [topic], partitions: SCALE_OUT_PARTITIONS, replicas: 1 });
  } finally {
    await admin.close();
  }
  return {
    ARBITER_KAFKA_BROKERS: brokers,
    ARBITER_KAFKA_TOPIC: topic,
    ARBITER_INGEST_WORKER: 'true',
    ARBITER_BLOB_URL: `s3://arbiter-test-${own}/model-text`,
    ARBITER_BLOB_ENDPOINT: endpoint,
    AWS_ACCESS_KEY_ID: keyId,
    AWS_SECRET_ACCESS_KEY: secret,
    AWS_REGION: 'us-east-1',
  };
}

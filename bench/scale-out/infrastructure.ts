import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runScript } from '../run-script.ts';

/** The servers every deployment of a run shares, each its own processes, started by the
 * scripts the scale-out suite uses (a PostgreSQL cluster of the run's own, so its process tree
 * holds this run's backends only). */
export interface Infrastructure {
  postgresUrl: string;
  postmasterPid: number;
  kafkaBrokers: string;
  brokerPids: number[];
  blobEndpoint: string;
  blobPid: number;
  /** The S3 server's directory of buckets (one directory each). */
  blobDataDir: string;
  /** Every broker's data (the topics' logs). */
  brokerDataDir: string;
  stop(): void;
}

const pidIn = (file: string) => Number(readFileSync(file, 'utf8').split('\n')[0]);

export function startInfrastructure(brokers: number): Infrastructure {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-capacity-'));
  // The cluster runs as the postgres user when we are root: it must get through to dir.
  chmodSync(dir, 0o711);
  const stop = () => {
    runScript('kafka-cluster.sh', ['stop', join(dir, 'kafka')]);
    runScript('s3-server.sh', ['stop', join(dir, 's3')]);
    runScript('stop-postgres.sh', [join(dir, 'pg')]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const postgresUrl = runScript('ensure-postgres.sh', [], {
      ARBITER_TEST_PG_DIR: join(dir, 'pg'),
      ARBITER_TEST_DATABASE_URL: '',
    });
    const kafkaBrokers = runScript('kafka-cluster.sh', [
      'start',
      String(brokers),
      join(dir, 'kafka'),
    ]);
    const blobEndpoint = runScript('s3-server.sh', ['start', join(dir, 's3')]);
    return {
      postgresUrl,
      postmasterPid: pidIn(join(dir, 'pg/data/postmaster.pid')),
      kafkaBrokers,
      brokerPids: Array.from({ length: brokers }, (_, i) =>
        pidIn(join(dir, `kafka/broker-${i + 1}.pid`)),
      ),
      blobEndpoint,
      blobPid: pidIn(join(dir, 's3/s3.pid')),
      blobDataDir: join(dir, 's3/data'),
      brokerDataDir: join(dir, 'kafka'),
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/** A fresh database on the run's cluster. */
export async function freshDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `arbiter_capacity_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql);
    await client.end();
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** Bytes under a directory (`du`), 0 when it is missing. */
export function bytesUnder(path: string): number {
  try {
    return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return 0;
  }
}

/** Bytes of a topic's log segments on every broker (its partitions' `.log` files). */
export function topicBytes(infra: Infrastructure, topic: string): number {
  let bytes = 0;
  for (const broker of readdirSync(infra.brokerDataDir)) {
    const data = join(infra.brokerDataDir, broker, 'data');
    if (!broker.startsWith('broker-') || !existsSync(data)) continue;
    for (const partition of readdirSync(data)) {
      if (!partition.startsWith(`${topic}-`)) continue;
      for (const file of readdirSync(join(data, partition)))
        if (file.endsWith('.log')) bytes += statSync(join(data, partition, file)).size;
    }
  }
  return bytes;
}

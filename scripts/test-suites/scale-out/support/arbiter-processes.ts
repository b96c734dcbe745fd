import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, startServer } from '../../../../apps/server/test/support/process.ts';

/** Where the processes of a scale-out test find the database and the log. */
export interface Deployment {
  databaseUrl: string;
  brokers: string;
  topic: string;
  /** The event data's shards (ARBITER_SHARD_URLS), when the deployment has several. */
  shardUrls?: readonly string[];
  /** Where the Kafka path de-duplicates and meters (ARBITER_KAFKA_METERING); the default when absent. */
  metering?: 'acceptance' | 'fold';
}

/** An `arbiter serve` process of a deployment, with the folder it was given and its role. */
export interface ArbiterProcess extends RunningServer {
  dataDir: string;
}

/**
 * The database URL with an application name, so pg_stat_activity tells which process a backend
 * serves (a fault test kills the process whose fold it caught).
 */
function named(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

function start(
  deployment: Deployment,
  name: string,
  env: Record<string, string>,
): Promise<ArbiterProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), `arbiter-${name}-`));
  return startServer({
    ARBITER_DATA_DIR: dataDir,
    ARBITER_DATABASE_URL: named(deployment.databaseUrl, name),
    ARBITER_KAFKA_BROKERS: deployment.brokers,
    ARBITER_KAFKA_TOPIC: deployment.topic,
    ...(deployment.shardUrls === undefined
      ? {}
      : { ARBITER_SHARD_URLS: deployment.shardUrls.map((url) => named(url, name)).join(',') }),
    ...(deployment.metering === undefined ? {} : { ARBITER_KAFKA_METERING: deployment.metering }),
    ARBITER_SCHEDULER: 'false',
    ARBITER_SESSION_JWKS_URL: '',
    ARBITER_SECRET_KEY: '',
    ...env,
  }).then(
    (server) => ({ ...server, dataDir }),
    (error) => {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    },
  );
}

/** An API process: it validates, meters and produces; it folds nothing. `port` 0 is any. */
export function startApi(deployment: Deployment, name: string, port: number) {
  return start(deployment, name, { ARBITER_INGEST_WORKER: 'false', ARBITER_PORT: String(port) });
}

/** A fold worker: it consumes the topic in the group and folds into the database. */
export function startFoldWorker(deployment: Deployment, name: string) {
  return start(deployment, name, { ARBITER_INGEST_WORKER: 'true' });
}

/** Ends the process (`SIGKILL` is the fault; `SIGTERM` the orderly stop) and removes its folder. */
export async function end(process: ArbiterProcess, signal: NodeJS.Signals): Promise<void> {
  if (process.child.exitCode === null && process.child.signalCode === null) {
    process.child.kill(signal);
    await process.exited;
  }
  rmSync(process.dataDir, { recursive: true, force: true });
}

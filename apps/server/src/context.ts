import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { judgeStepFor } from './analysis/judge-step.ts';
import type { JudgeStep } from './analysis/nightly.ts';
import { createSessionVerifier, type SessionVerifier } from './auth/session-verifier.ts';
import { type Config, isDevelopmentSessions } from './config.ts';
import { createSecretBox, type SecretBox } from './crypto/secret-box.ts';
import { type Database, type DatabaseHandle, openDatabase } from './db/connect.ts';
import { ApiKeyCache } from './domain/api-key-cache.ts';
import { ChangeListener } from './domain/change-feed.ts';
import { OrgStateCache } from './domain/client-config.ts';
import { IdentityResolver } from './domain/identity.ts';
import { CopyEventStore } from './ingest/copy-store.ts';
import { DrainWorker } from './ingest/drain-worker.ts';
import { PostgresQueue } from './ingest/postgres-queue.ts';
import type { IngestQueue } from './ingest/queue.ts';

export interface Clock {
  now(): Date;
}

/** Every service a route may use, passed in; tests build one with their own parts. */
export interface Context {
  config: Config;
  db: Database;
  dbKind: DatabaseHandle['kind'];
  sessions: SessionVerifier;
  identity: IdentityResolver;
  secretBox: SecretBox | null;
  clock: Clock;
  /** The process's logger; the HTTP app logs through it too. */
  log: Logger;
  apiKeys: ApiKeyCache;
  orgState: OrgStateCache;
  queue: IngestQueue;
  worker: DrainWorker;
  /** Lets the local `arbiter` command reach this process's admin routes (written to the data dir). */
  controlToken: string;
  /** Scores judge metrics before the nightly analysis; null without a judge endpoint. */
  judgeStep: JudgeStep | null;
  close(): Promise<void>;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Development mode keeps its own secret key in the data dir so reveal works out of the box;
 * a real deployment sets ARBITER_SECRET_KEY or has non-revealable keys.
 */
function secretKeyOf(config: Config): string | null {
  if (config.secretKey !== null || !isDevelopmentSessions(config)) return config.secretKey;
  const file = join(config.dataDir, 'dev-secret.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch {
      // another process wrote it first; read theirs
    }
  }
  return readFileSync(file, 'utf8').trim();
}

export interface ContextParts {
  clock?: Clock;
  /** An already open database (tests pass an in-memory PGlite). */
  database?: DatabaseHandle;
}

export async function createContext(config: Config, parts: ContextParts = {}): Promise<Context> {
  const log = pino({ level: config.logLevel });
  const handle =
    parts.database ??
    (await openDatabase(
      config.databaseUrl === null
        ? { kind: 'pglite', dataDir: config.dataDir }
        : { kind: 'postgres', url: config.databaseUrl },
      (err) =>
        log.warn(
          { err },
          'a pooled PostgreSQL connection was lost; the next query opens a new one',
        ),
    ));
  const secretKey = secretKeyOf(config);
  const clock = parts.clock ?? systemClock;
  const queue = new PostgresQueue(
    handle.db,
    handle.pool === null ? null : new CopyEventStore(handle.pool),
  );
  const worker = new DrainWorker(queue, log);
  const apiKeys = new ApiKeyCache(handle.db, clock);
  const orgState = new OrgStateCache(handle.db, clock);
  // Other processes on the same PostgreSQL server announce rotations and config changes.
  const changes =
    handle.pool === null
      ? null
      : new ChangeListener(
          handle.pool,
          {
            onKeys: () => apiKeys.clear(),
            onConfig: (orgId) => orgState.invalidate(orgId),
            onResync: () => {
              apiKeys.clear();
              orgState.clear();
            },
          },
          log,
        );
  await changes?.start();
  return {
    config,
    db: handle.db,
    dbKind: handle.kind,
    sessions: await createSessionVerifier(config),
    identity: new IdentityResolver(handle.db),
    secretBox: secretKey === null ? null : createSecretBox(secretKey),
    clock,
    log,
    apiKeys,
    orgState,
    queue,
    worker,
    controlToken: randomBytes(32).toString('base64url'),
    judgeStep: judgeStepFor(config),
    close: async () => {
      await worker.stop();
      await changes?.stop();
      await handle.close();
    },
  };
}

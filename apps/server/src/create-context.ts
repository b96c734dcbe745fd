import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DestinationStream, Logger } from 'pino';
import { guardDue } from './analysis/guard/guard-run.ts';
import { OfflineScoring } from './analysis/offline-scoring/offline-scoring.ts';
import { type Config, isDevelopmentSessions } from './config.ts';
import type { Context } from './context.ts';
import { createLogger } from './create-logger.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import { type Database, type DatabaseHandle, openDatabase } from './db/connect.ts';
import { DiskGuard, statfsProbe } from './db/disk-guard.ts';
import { type OpenShard, openConfiguredShards, shardSetFor } from './db/shards/open-shards.ts';
import type { ShardSet } from './db/shards/shard-set.ts';
import { ApiKeyCache } from './domain/api-key-cache.ts';
import { ChangeListener } from './domain/change-feed.ts';
import { ContactNotifier } from './domain/contact-notifier.ts';
import { IdentityResolver } from './domain/identity/identity.ts';
import { createSessionVerifier } from './domain/identity/session-verifier.ts';
import { ModelPriceCache } from './domain/model-prices/price-cache.ts';
import { OrgStateCache } from './domain/org-state-cache.ts';
import { WebhookDelivery } from './domain/outbound-webhooks/delivery-loop.ts';
import { PatternWatch } from './domain/patterns/pattern-watch.ts';
import { RolloutTicker } from './domain/rollouts/ticker.ts';
import { AssignTallies } from './domain/targeting/assign-tallies.ts';
import { createMetrics } from './http/metrics.ts';
import { type AcceptDeps, acceptEvents } from './ingest/accept.ts';
import { CopyGroups } from './ingest/copy-groups.ts';
import { CopyEventStore } from './ingest/copy-store.ts';
import type { EventLog } from './ingest/event-log.ts';
import { FoldWorker } from './ingest/fold-worker.ts';
import { ServerExposures } from './ingest/ofrep/server-exposures.ts';
import { PostgresEventLog } from './ingest/postgres-event-log.ts';
import { ShardedEventLog } from './ingest/shards/sharded-event-log.ts';
import { Lifecycle } from './kernel/lifecycle.ts';
import {
  type Clock,
  type FreeSpaceProbe,
  type Metrics,
  silentMetrics,
  systemClock,
} from './kernel/ports.ts';
import { logFormatOf } from './pretty-log-stream.ts';

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
  /** Where log lines go instead of stdout (tests keep every line of a run in one folder). */
  logDestination?: DestinationStream;
  /** How the embedded database's free space is read (default: statfs of its data dir). */
  freeSpace?: FreeSpaceProbe;
  /** Already open shards of event data in place of ARBITER_SHARD_URLS (tests' fresh databases). */
  shards?: OpenShard[];
}

function openConfiguredDatabase(config: Config, log: Logger): Promise<DatabaseHandle> {
  return openDatabase(
    config.databaseUrl === null
      ? { kind: 'pglite', dataDir: config.dataDir }
      : { kind: 'postgres', url: config.databaseUrl },
    (err) =>
      log.warn({ err }, 'a pooled PostgreSQL connection was lost; the next query opens a new one'),
    config.databaseTimeoutMs,
    config.traces,
  );
}

/** The shards of ARBITER_SHARD_URLS, opened and migrated; none without it. */
function openShardsOf(config: Config, log: Logger): Promise<OpenShard[]> {
  return openConfiguredShards(config, (err) =>
    log.warn({ err }, 'a pooled connection to a shard was lost; the next query opens a new one'),
  );
}

/** The free-space guard of a database that writes local files; null otherwise. */
function diskGuardOf(handle: DatabaseHandle, config: Config, probe?: FreeSpaceProbe) {
  if (handle.dataDir === null) return null;
  return new DiskGuard(
    handle.dataDir,
    probe ?? statfsProbe(handle.dataDir),
    config.minFreeDiskBytes,
  );
}

/** The fold worker: it waits while the disk is too full to write, and lets events gather. */
function foldWorkerOf(
  config: Config,
  eventLog: EventLog,
  log: Logger,
  disk: DiskGuard | null,
  metrics: Metrics,
): FoldWorker {
  const mayWrite = () => disk?.writesAccepted() ?? true;
  return new FoldWorker(eventLog, log, mayWrite, metrics, config.foldGatherMs);
}

/** Other processes on the same PostgreSQL server announce rotations and config changes. */
function listenForChanges(
  handle: DatabaseHandle,
  apiKeys: ApiKeyCache,
  orgState: OrgStateCache,
  log: Logger,
): ChangeListener | null {
  if (handle.pool === null) return null;
  return new ChangeListener(
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
}

/**
 * The configured integrations. Each SDK (nodemailer, openai, the Clerk SDK, stripe) is imported
 * only when its setting is set: loading them all was a tenth of a restart's work for a server
 * that uses none (docs/decisions/operations.md#build-start-and-the-demo).
 */
async function createIntegrations(config: Config) {
  const [mailer, judge, identityDirectory, billing, billingWebhooks] = await Promise.all([
    config.smtpUrl === null
      ? null
      : import('./integrations/mail/smtp-mailer.ts').then((m) => m.createMailer(config)),
    config.judgeBaseUrl === null
      ? null
      : import('./integrations/judge/chat-completions-judge.ts').then((m) => m.createJudge(config)),
    config.clerkSecretKey === null
      ? null
      : import('./integrations/clerk/clerk-directory.ts').then((m) =>
          m.createIdentityDirectory(config),
        ),
    config.stripe.secretKey === null
      ? null
      : import('./integrations/stripe/stripe-billing.ts').then((m) =>
          m.createBilling(config.stripe),
        ),
    config.stripe.webhookSecret === null
      ? null
      : import('./integrations/stripe/stripe-webhooks.ts').then((m) =>
          m.createBillingWebhooks(config.stripe),
        ),
  ]);
  return { mailer, judge, identityDirectory, billing, billingWebhooks };
}

/** The object store of model text when ARBITER_BLOB_URL is set; the AWS SDK is loaded only then. */
async function modelTextStoreOf(config: Config) {
  if (config.blob === null) return null;
  const { S3ModelTextStore } = await import('./integrations/blob/s3-model-text-store.ts');
  return new S3ModelTextStore(config.blob);
}

/**
 * Kafka is the log when it is set, over the shards when there are several (its fold workers
 * store each event on its user's shard); else the shards' log, or the one database's. The
 * Kafka client is loaded only when set. A process that runs the fold worker reads the topic;
 * the others only produce to it.
 */
async function eventLogOf(
  config: Config,
  handle: DatabaseHandle,
  shards: ShardSet,
): Promise<EventLog & { close?(): Promise<void> }> {
  if (config.kafka !== null) {
    const { KafkaEventLog } = await import('./ingest/kafka/kafka-event-log.ts');
    const log = new KafkaEventLog(handle.db, config.kafka, shards);
    if (config.ingestWorker) log.consume();
    return log;
  }
  if (shards.sharded || shards.all[0] !== handle)
    return new ShardedEventLog(handle.db, shards, (position) => {
      const pool = shards.all[position]?.pool ?? null;
      return pool === null ? null : new CopyEventStore(pool);
    });
  return new PostgresEventLog(
    handle.db,
    handle.pool === null ? null : new CopyGroups(new CopyEventStore(handle.pool)),
  );
}

/**
 * The per-org caches: the org state, the watch over stored patterns (whose deny set the state
 * consults) and the price books that price model calls at acceptance.
 */
function orgCachesOf(db: Database, clock: Clock, log: Logger) {
  const orgState: OrgStateCache = new OrgStateCache(
    db,
    clock,
    undefined,
    (pattern, insensitive) => patterns.denies(pattern, insensitive),
    () => patterns.verdict(),
  );
  const patterns = new PatternWatch(db, log, (orgId) => orgState.invalidate(orgId));
  return { orgState, patterns, modelPrices: new ModelPriceCache(db, clock) };
}

/**
 * The work each process does in the background besides the fold, each stopped at close (before
 * the fold: the exposures OFREP records are appended on the way out).
 */
function backgroundJobs(
  deps: Pick<Context, 'db' | 'judge' | 'clock' | 'log' | 'metrics' | 'secretBox' | 'shards'> &
    AcceptDeps,
) {
  // A ramp's advance changes its org's config: this process serves the new one at once.
  const changed = (orgId: string) => deps.orgState.invalidate(orgId);
  return {
    rollouts: new RolloutTicker({ ...deps, changed }, (now) => guardDue(deps, now)),
    offlineScoring: new OfflineScoring(deps),
    assignTallies: new AssignTallies(deps.db, deps.clock, deps.log),
    serverExposures: new ServerExposures(
      (orgId, events) => acceptEvents(deps, orgId, events),
      deps.clock,
      deps.log,
    ),
    webhookDelivery: new WebhookDelivery(
      {
        ...deps,
        allowPrivate: deps.config.webhooksAllowPrivate,
        dashboardUrl: deps.config.dashboardUrl,
      },
      deps.log,
    ),
  };
}

/** Sealed secrets need ARBITER_SECRET_KEY; without it there is no box. */
function secretBoxOf(config: Config) {
  const secretKey = secretKeyOf(config);
  return secretKey === null ? null : createSecretBox(secretKey);
}

export async function createContext(config: Config, parts: ContextParts = {}): Promise<Context> {
  const format = logFormatOf(config.logFormat, process.stdout.isTTY === true);
  const log = createLogger(config.logLevel, parts.logDestination, format);
  const handle = parts.database ?? (await openConfiguredDatabase(config, log));
  const shards = await shardSetFor(handle, parts.shards ?? (await openShardsOf(config, log)));
  const secretBox = secretBoxOf(config);
  const clock = parts.clock ?? systemClock;
  const eventLog = await eventLogOf(config, handle, shards);
  const modelText = await modelTextStoreOf(config);
  const disk = diskGuardOf(handle, config, parts.freeSpace);
  const metrics = config.metrics ? createMetrics({ ...handle, shards }) : silentMetrics;
  const worker = foldWorkerOf(config, eventLog, log, disk, metrics);
  const apiKeys = new ApiKeyCache(handle.db, clock);
  const orgStates = orgCachesOf(handle.db, clock, log);
  const changes = listenForChanges(handle, apiKeys, orgStates.orgState, log);
  await changes?.start();
  const integrations = await createIntegrations(config);
  const { mailer, judge } = integrations;
  const contactNotifier = new ContactNotifier(handle.db, mailer, config.platformOwnerEmails, log);
  const base = { clock, config, eventLog, metrics, modelText, apiKeys, ...orgStates };
  const jobs = backgroundJobs({ ...base, db: handle.db, judge, log, secretBox, shards });
  return {
    config,
    db: handle.db,
    dbKind: handle.kind,
    dbPool: handle.pool,
    shards,
    disk,
    sessions: await createSessionVerifier(config),
    identity: new IdentityResolver(handle.db),
    secretBox,
    clock,
    log,
    apiKeys,
    ...orgStates,
    eventLog,
    modelText,
    worker,
    metrics,
    lifecycle: new Lifecycle(),
    controlToken: randomBytes(32).toString('base64url'),
    dumpDatabase: handle.dump,
    ...integrations,
    ...jobs,
    contactNotifier,
    planPrices: { pro: config.stripe.pricePro, business: config.stripe.priceBusiness },
    close: async () => {
      await Promise.all(Object.values(jobs).map((job) => job.stop()));
      await worker.stop();
      await eventLog.close?.();
      modelText?.close();
      await contactNotifier.idle();
      mailer?.close();
      await changes?.stop();
      await Promise.all(shards.all.filter((s) => s !== handle).map((s) => s.close()));
      await handle.close();
    },
  };
}

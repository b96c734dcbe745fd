import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Database, DatabaseHandle } from './db/connect.ts';
import type { DiskGuard } from './db/disk-guard.ts';
import type { DataDirCopy } from './db/pglite-backup.ts';
import type { ShardSet } from './db/shards/shard-set.ts';
import type { ApiKeyCache } from './domain/api-key-cache.ts';
import type { PlanPrices } from './domain/billing/plan-prices.ts';
import type { ContactNotifier } from './domain/contact-notifier.ts';
import type { IdentityResolver } from './domain/identity/identity.ts';
import type { SessionVerifier } from './domain/identity/session-verifier.ts';
import type { ModelPriceCache } from './domain/model-prices/price-cache.ts';
import type { OfflineScoringQueue } from './domain/offline-runs/scoring-queue.ts';
import type { OrgStateCache } from './domain/org-state-cache.ts';
import type { WebhookDelivery } from './domain/outbound-webhooks/delivery-loop.ts';
import type { PatternWatch } from './domain/patterns/pattern-watch.ts';
import type { RolloutTicker } from './domain/rollouts/ticker.ts';
import type { AssignTallies } from './domain/targeting/assign-tallies.ts';
import type { EventLog } from './ingest/event-log.ts';
import type { FoldWorker } from './ingest/fold-worker.ts';
import type { ServerExposures } from './ingest/ofrep/server-exposures.ts';
import type { Lifecycle } from './kernel/lifecycle.ts';
import type {
  BillingProvider,
  BillingWebhookVerifier,
  Clock,
  IdentityDirectory,
  Judge,
  Mailer,
  Metrics,
  ModelTextStore,
} from './kernel/ports.ts';

/**
 * Every service a route may use, passed in; tests build one with their own parts. Only types
 * here: create-context.ts wires the real parts, so no layer that takes a Context imports them.
 */
export interface Context {
  config: Config;
  db: Database;
  dbKind: DatabaseHandle['kind'];
  /** The PostgreSQL server's pool, for COPY (Drizzle does not speak it); null on PGlite. */
  dbPool: DatabaseHandle['pool'];
  /** Where event data lives: one shard (the database above) unless ARBITER_SHARD_URLS is set. */
  shards: ShardSet;
  /** Refuses writes while the embedded database's disk is nearly full; null when it has none. */
  disk: DiskGuard | null;
  sessions: SessionVerifier;
  identity: IdentityResolver;
  secretBox: SecretBox | null;
  clock: Clock;
  /** The process's logger; the HTTP app logs through it too. */
  log: Logger;
  apiKeys: ApiKeyCache;
  orgState: OrgStateCache;
  /** Each org's price book (its own rows over the built-in table), which prices model calls. */
  modelPrices: ModelPriceCache;
  /** Stored patterns the server refuses to run, found by a scan at start-up (and its deny set). */
  patterns: PatternWatch;
  /** The permanent event log every acceptance appends to. */
  eventLog: EventLog;
  /** Where model calls' text goes (ARBITER_BLOB_URL); null = it stays in the event row. */
  modelText: ModelTextStore | null;
  /** Folds the event log into the per-user daily aggregates. */
  worker: FoldWorker;
  /** Prometheus counters (ARBITER_METRICS), or `silentMetrics` when they are off. */
  metrics: Metrics;
  /** Serving, stopping (readiness fails) or closing (requests refused): set by the process on a stop signal. */
  lifecycle: Lifecycle;
  /**
   * A consistent copy of the embedded database, streamed as the gzipped tarball `arbiter
   * restore` loads (the entries of PGlite's own dump); null on a PostgreSQL server.
   */
  dumpDatabase: (() => Promise<DataDirCopy>) | null;
  /** Lets the local `arbiter` command reach this process's admin routes (written to the data dir). */
  controlToken: string;
  /** The judge model that scores judge metrics and offline judge scorers; null without a judge endpoint. */
  judge: Judge | null;
  /** Scores offline runs: the built-ins at `complete`, the judge through its queue. */
  offlineScoring: OfflineScoringQueue;
  /** Mail over SMTP (ARBITER_SMTP_URL); null when not configured. */
  mailer: Mailer | null;
  /** Sends the queued outbound webhooks in the background. */
  webhookDelivery: WebhookDelivery;
  /** Advances the ramps of rollouts and runs their guard in the background. */
  rollouts: RolloutTicker;
  /** `POST /v1/assign`'s targeting tallies, added to their table in the background. */
  assignTallies: AssignTallies;
  /** The exposures OFREP evaluations record, appended through acceptance in the background. */
  serverExposures: ServerExposures;
  /** Mails stored contact messages to the platform owners in the background. */
  contactNotifier: ContactNotifier;
  /** The identity provider's Backend API (seat caps); null without its secret key. */
  identityDirectory: IdentityDirectory | null;
  /** Hosted checkout and portal at the billing provider; null without a billing key. */
  billing: BillingProvider | null;
  /** Verifies billing webhooks; null without an endpoint secret (deliveries answer 401). */
  billingWebhooks: BillingWebhookVerifier | null;
  /** The billing provider's price id of each paid plan. */
  planPrices: PlanPrices;
  close(): Promise<void>;
}

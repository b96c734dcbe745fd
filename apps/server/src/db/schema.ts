import type { BucketMap } from '@arbiter/contract';
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  type ReferenceConfig,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type {
  ArmStatus,
  Decision,
  MetricResult,
  RunKind,
  SrmStatus,
  StoredSlices,
} from '../schemas/analysis-run.ts';
import type { ExperimentConfig } from '../schemas/experiment-config.ts';
import type { PromptTemplate } from '../schemas/prompt.ts';
import type { GuardrailReading } from '../schemas/rollout.ts';

/** A run of a layer's buckets handed to an experiment; `retired` once given up, for good. */
export interface LayerRun {
  experiment_id: string;
  start: number;
  end: number;
  retired?: true;
}

export type ExperimentStatus = 'draft' | 'running' | 'stopped' | 'archived';
export type StopConclusion = 'ship' | 'rollback' | 'inconclusive';

/** A timestamp with time zone (nullable until told otherwise). */
const at = (name: string) => timestamp(name, { withTimezone: true });
/** A timestamp with time zone that the database sets to the insert's instant. */
const stampedNow = (name: string) => at(name).notNull().defaultNow();
const createdAt = () => stampedNow('created_at');
const updatedAt = () => stampedNow('updated_at');

/** `created_at` and `updated_at`, both set on insert. */
function timestamps() {
  return { createdAt: createdAt(), updatedAt: updatedAt() };
}

/** The user who wrote the row (null: an API key or the server) and when. */
function authored() {
  return { createdBy: uuid('created_by').references(() => users.id), createdAt: createdAt() };
}

/** A required reference to another table's row. */
const ref = (name: string, target: () => AnyPgColumn, actions?: ReferenceConfig['actions']) =>
  uuid(name).notNull().references(target, actions);

/** A primary key that is also a reference: the row extends another table's row, one to one. */
const primaryRef = (name: string, target: () => AnyPgColumn) =>
  uuid(name).primaryKey().references(target);

/** The owning org's id, checked against `orgs`. */
const orgRef = () => ref('org_id', () => orgs.id);

/** A random UUID primary key and the org that owns the row. */
function orgOwned() {
  return { id: uuid('id').primaryKey().defaultRandom(), orgId: orgRef() };
}

/** An event's key as stored: its org and the id the sender gave it (no foreign key). */
function orgEventKey() {
  return { orgId: uuid('org_id').notNull(), eventId: text('event_id').notNull() };
}

/** A non-negative tally that the fold or the meter adds to, from 0. */
const tally = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);
/** A UTC calendar day as `YYYY-MM-DD`. */
const utcDay = (name = 'day') => date(name, { mode: 'string' }).notNull();

/**
 * What the identity provider's webhook last said of a row. `synced_at` is the instant of the
 * last event applied (null: only ever seen in a session token, which then governs the row);
 * an older event changes nothing. `deleted_at`: deleted at the provider, kept as a tombstone
 * so that a still-valid session token cannot bring it back.
 */
function providerSync() {
  return {
    syncedAt: at('synced_at'),
    deletedAt: at('deleted_at'),
  };
}

/** Internal ids are UUIDs; the identity provider's ids live in external_id columns. */
export const orgs = pgTable('orgs', {
  id: uuid('id').primaryKey().defaultRandom(),
  externalId: text('external_id').notNull().unique(),
  name: text('name'),
  /** Rises with every experiment change of the org; clients compare it to their cache. */
  configVersion: tally('config_version'),
  /** Plan from the billing provider; an org that never checked out is on free. */
  plan: text('plan').notNull().default('free'),
  createdAt: createdAt(),
  ...providerSync(),
});

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  externalId: text('external_id').notNull().unique(),
  email: text('email'),
  name: text('name'),
  ...timestamps(),
  ...providerSync(),
});

export const memberships = pgTable(
  'memberships',
  {
    orgId: orgRef(),
    userId: ref('user_id', () => users.id),
    role: text('role').notNull(),
    createdAt: createdAt(),
    /** The identity provider's membership id, once its webhook has told us of it. */
    externalId: text('external_id').unique(),
    ...providerSync(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] })],
);

/** Svix message ids of identity webhook deliveries already applied: a replay is applied once. */
export const identityWebhookDeliveries = pgTable('identity_webhook_deliveries', {
  svixId: text('svix_id').primaryKey(),
  eventType: text('event_type').notNull(),
  receivedAt: stampedNow('received_at'),
});

export const experiments = pgTable(
  'experiments',
  {
    ...orgOwned(),
    name: text('name').notNull(),
    salt: text('salt').notNull(),
    bucketCount: integer('bucket_count').notNull(),
    currentVersion: integer('current_version').notNull(),
    /**
     * `experiment`, or `holdout`: the row behind a holdout (docs/decisions/targeting.md#holdouts), ingested
     * and analysed as an experiment but never listed, served in the config's experiments or
     * assigned.
     */
    kind: text('kind').$type<'experiment' | 'holdout'>().notNull().default('experiment'),
    /**
     * Where the experiment is in its lifecycle (docs/experiments-lifecycle.md); rows written
     * before the lifecycle existed are `running`. Not part of a version: a transition mints a
     * config version, not an experiment version.
     */
    status: text('status').$type<ExperimentStatus>().notNull().default('running'),
    /** The status an archived experiment came from, which unarchive restores; null otherwise. */
    archivedFrom: text('archived_from').$type<'draft' | 'stopped'>(),
    /** The stop, set once by the running → stopped transition; null before. */
    stopConclusion: text('stop_conclusion').$type<StopConclusion>(),
    servedVariant: text('served_variant'),
    stopReason: text('stop_reason'),
    stoppedAt: at('stopped_at'),
    stoppedBy: uuid('stopped_by').references(() => users.id),
    ...timestamps(),
  },
  (t) => [uniqueIndex('experiments_org_name').on(t.orgId, t.name)],
);

/** Every version of an experiment, whole: its config and the bucket map computed for it. */
export const experimentVersions = pgTable(
  'experiment_versions',
  {
    experimentId: ref('experiment_id', () => experiments.id),
    version: integer('version').notNull(),
    config: jsonb('config').$type<ExperimentConfig>().notNull(),
    bucketMap: jsonb('bucket_map').$type<BucketMap>().notNull(),
    /** The layer buckets the version owns (sorted half-open runs); null outside a layer. */
    layerRanges: jsonb('layer_ranges').$type<Array<{ start: number; end: number }>>(),
    ...authored(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.version] })],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    ...orgOwned(),
    scope: text('scope').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    /** AES-256-GCM of the raw key; null when no secret key was configured at creation. */
    keyCiphertext: text('key_ciphertext'),
    keyHint: text('key_hint').notNull(),
    ...authored(),
    revokedAt: at('revoked_at'),
  },
  // One active key per scope, enforced by the database as well as by the rotation.
  (t) => [
    uniqueIndex('api_keys_one_active_per_scope')
      .on(t.orgId, t.scope)
      .where(sql`revoked_at is null`),
  ],
);

export const webhookSecrets = pgTable(
  'webhook_secrets',
  {
    ...orgOwned(),
    secretCiphertext: text('secret_ciphertext').notNull(),
    ...authored(),
    revokedAt: at('revoked_at'),
  },
  (t) => [uniqueIndex('webhook_secrets_one_active').on(t.orgId).where(sql`revoked_at is null`)],
);

export const auditLog = pgTable(
  'audit_log',
  {
    /** Orders entries made within the same instant. */
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: uuid('id').notNull().defaultRandom().unique(),
    orgId: orgRef(),
    actorUserId: uuid('actor_user_id').references(() => users.id),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_log_org_target').on(t.orgId, t.targetId),
    // A guardrail violation is audited once per (experiment, run label, metric, treatment).
    uniqueIndex('audit_log_guardrail_once')
      .on(
        t.targetId,
        sql`(${t.details}->>'run')`,
        sql`(${t.details}->>'metric')`,
        sql`(${t.details}->>'treatment')`,
      )
      .where(sql`${t.action} = 'guardrail.violated'`),
  ],
);

export const feedback = pgTable('feedback', {
  ...orgOwned(),
  userId: uuid('user_id').references(() => users.id),
  category: text('category').notNull(),
  message: text('message').notNull(),
  page: text('page'),
  createdAt: createdAt(),
});

/**
 * One row: the lock the fold takes first, so folds of several processes take turns (only the
 * fold writes the aggregate tables, so their upserts need no lock order).
 */
export const ingestWatermark = pgTable('ingest_watermark', {
  id: integer('id').primaryKey().default(1),
});

/**
 * The fold's queue: one row per transaction that stored events and is not folded yet, written
 * by a statement trigger on `events` (migration 0010) in that same transaction, so it becomes
 * visible exactly when its events do. The fold deletes the rows it folds in the transaction
 * that folds them. No horizon: a transaction still open anywhere on the server holds back only
 * its own rows. `accepted_at` is the storing transaction's start, before its commit (and so
 * before its 202): every event acknowledged before an instant T is folded once no row here has
 * `accepted_at` before T.
 */
export const ingestPending = pgTable(
  'ingest_pending',
  {
    txid: bigint('txid', { mode: 'number' }).primaryKey(),
    acceptedAt: stampedNow('accepted_at'),
  },
  (t) => [index('ingest_pending_accepted').on(t.acceptedAt)],
);

/**
 * Raw events, kept for the plan's retention, and the ingest log: `txid` is the id of the
 * transaction that stored the row, the key the fold's queue (`ingest_pending`) names it by.
 */
export const events = pgTable(
  'events',
  {
    ...orgEventKey(),
    type: text('type').notNull(),
    experimentId: uuid('experiment_id').notNull(),
    userId: text('user_id').notNull(),
    variant: text('variant'),
    occurredAt: at('occurred_at').notNull(),
    receivedAt: at('received_at').notNull(),
    latencyMs: doublePrecision('latency_ms'),
    inputTokens: doublePrecision('input_tokens'),
    outputTokens: doublePrecision('output_tokens'),
    // Parts of the two above: input read from the provider's cache, output spent reasoning.
    cachedInputTokens: doublePrecision('cached_input_tokens'),
    reasoningTokens: doublePrecision('reasoning_tokens'),
    costUsd: doublePrecision('cost_usd'),
    // The price row that gave `cost_usd` when the server priced the call from its tokens
    // (`builtin:<pattern>@<date>` or `org:<pattern>@<date>`); null when the caller sent the cost.
    pricedBy: text('priced_by'),
    model: text('model'),
    error: text('error'),
    prompt: text('prompt'),
    response: text('response'),
    // With object storage (ARBITER_BLOB_URL) a model call's text is not in the row: these say
    // where it is (the object's key), how many UTF-8 bytes of it are the prompt and the
    // response (null: the event has none), and the object's SHA-256 (docs/decisions/scale-out.md#model-text-in-object-storage).
    textKey: text('text_key'),
    promptBytes: integer('prompt_bytes'),
    responseBytes: integer('response_bytes'),
    textSha256: text('text_sha256'),
    businessMetric: text('business_metric'),
    value: doublePrecision('value'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>(),
    isTest: boolean('is_test').notNull().default(false),
    txid: bigint('txid', { mode: 'number' })
      .notNull()
      .default(sql`(pg_current_xact_id()::text::bigint)`),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.eventId] }),
    index('events_experiment_time').on(t.experimentId, t.occurredAt),
    index('events_txid').on(t.txid),
    // A quantile's per-user counts read only the calls above its estimate (about 1 − q of
    // them) by these, one per quantile kind, on the value as `CALL_VALUE` (db/call-values.ts) computes it.
    index('events_call_latency')
      .on(t.experimentId, t.latencyMs)
      .where(sql`type = 'model_call' and latency_ms is not null`),
    index('events_call_tokens')
      .on(t.experimentId, sql`(coalesce(input_tokens, 0) + coalesce(output_tokens, 0))`)
      .where(sql`type = 'model_call' and (input_tokens is not null or output_tokens is not null)`),
    index('events_call_cost')
      .on(t.experimentId, t.costUsd)
      .where(sql`type = 'model_call' and cost_usd is not null`),
    // The calls no price row matched, counted per model by GET /v1/usage: few, once a team adds
    // the prices it is told of.
    index('events_unpriced')
      .on(t.orgId, t.occurredAt)
      .where(sql`type = 'model_call' and cost_usd is null and model is not null`),
  ],
);

/**
 * An org's own model prices, added to or overriding the built-in table
 * (domain/model-prices/prices.json): US dollars per million tokens of each kind, from
 * `effective_from` (a UTC day) on. A missing cached or reasoning rate is the input or output rate.
 */
export const modelPrices = pgTable(
  'model_prices',
  {
    orgId: ref('org_id', () => orgs.id, { onDelete: 'cascade' }),
    pattern: text('pattern').notNull(),
    effectiveFrom: utcDay('effective_from'),
    inputPerMillion: doublePrecision('input_per_million').notNull(),
    outputPerMillion: doublePrecision('output_per_million').notNull(),
    cachedInputPerMillion: doublePrecision('cached_input_per_million'),
    reasoningPerMillion: doublePrecision('reasoning_per_million'),
    source: text('source'),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.pattern, t.effectiveFrom] })],
);

/**
 * Stored events the fold could not fold (a value or shape the aggregates refused), with the
 * database's reason. The fold passes them so one row never holds back the others; the event
 * itself stays in `events` (accepted data is never lost) and is listed for the platform owner.
 */
export const ingestQuarantine = pgTable(
  'ingest_quarantine',
  {
    ...orgEventKey(),
    experimentId: uuid('experiment_id'),
    type: text('type'),
    reason: text('reason').notNull(),
    quarantinedAt: stampedNow('quarantined_at'),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.eventId] }),
    index('ingest_quarantine_time').on(t.quarantinedAt),
  ],
);

/**
 * With a Kafka log (`ARBITER_KAFKA_BROKERS`): the event ids an API process has accepted onto
 * the topic, claimed in the transaction that meters them, so a retried batch is metered and
 * produced once. `digest` is the SHA-256 of what the event says (its checked content without
 * `received_at`), so a reused id that says something else is reported as a conflict, as the
 * `events` row is on the single-node log. Unused without Kafka.
 */
export const eventClaims = pgTable(
  'event_claims',
  {
    ...orgEventKey(),
    digest: text('digest').notNull(),
    claimedAt: stampedNow('claimed_at'),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.eventId] }),
    index('event_claims_time').on(t.claimedAt),
  ],
);

/**
 * With a Kafka log: per topic partition, the offset of the next message the fold workers will
 * read, written in the transaction that stores and folds the messages before it. A worker
 * seeks here on start, so a crash between a fold and Kafka's own offset commit re-reads
 * nothing that was folded (and a message read twice is stored once anyway).
 */
export const ingestInbox = pgTable(
  'ingest_inbox',
  {
    topic: text('topic').notNull(),
    partition: integer('partition').notNull(),
    nextOffset: bigint('next_offset', { mode: 'bigint' }).notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.topic, t.partition] })],
);

/**
 * Per user, per UTC day: the built-in measures as counts and sums (cost as a sum alone: its
 * per-user value is the sum). Sums are `numeric` (exact, no overflow: the fold adds event
 * values cast to numeric). No sums of squares: the tests run on per-user values, so a
 * user's within-day spread never enters (docs/decisions/ingest.md#the-event-log-and-the-fold). One wide row
 * per user-day keeps ingest to one aggregate write per event. The analysis reads these, never
 * a scan of raw events, so retention never shortens an analysis window.
 */
export const userDayStats = pgTable(
  'user_day_stats',
  {
    experimentId: uuid('experiment_id').notNull(),
    day: utcDay(),
    variant: text('variant').notNull(),
    userId: text('user_id').notNull(),
    exposures: tally('exposures'),
    calls: tally('calls'),
    errors: tally('errors'),
    latencyN: tally('latency_n'),
    latencySum: numeric('latency_sum', { mode: 'number' }).notNull().default(0),
    tokensN: tally('tokens_n'),
    tokensSum: numeric('tokens_sum', { mode: 'number' }).notNull().default(0),
    costSum: numeric('cost_sum', { mode: 'number' }).notNull().default(0),
    costN: tally('cost_n'),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.day, t.variant, t.userId] })],
);

/**
 * Model calls per (experiment, UTC day, arm, quantile kind, value): exact counts the fold keeps
 * once per accepted event, as it keeps `user_day_stats`. A quantile's calls per arm and its
 * order statistics come from these few rows (latencies in whole milliseconds and token counts
 * repeat a lot) instead of a sort of every call, and several databases' counts merge by
 * addition (docs/decisions/analysis.md#quantile-and-ratio-metrics). `kind` is `latency`, `tokens` or
 * `cost`; `value` is the call's value as `CALL_VALUE` computes it.
 */
export const callValueCounts = pgTable(
  'call_value_counts',
  {
    experimentId: uuid('experiment_id').notNull(),
    kind: text('kind').notNull(),
    day: utcDay(),
    variant: text('variant').notNull(),
    value: doublePrecision('value').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.kind, t.day, t.variant, t.value] })],
);

/** Per user, per UTC day, per business metric: count and sum of `value` (exact `numeric`). */
export const userDayBusiness = pgTable(
  'user_day_business',
  {
    experimentId: uuid('experiment_id').notNull(),
    day: utcDay(),
    metric: text('metric').notNull(),
    variant: text('variant').notNull(),
    userId: text('user_id').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
    sum: numeric('sum', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.day, t.metric, t.variant, t.userId] })],
);

/**
 * Metered usage per org per UTC calendar month (YYYY-MM), split over a few shard rows so
 * concurrent batches of one org do not queue on one row lock; usage is the sum of the shards.
 */
export const usageCounters = pgTable(
  'usage_counters',
  {
    orgId: uuid('org_id').notNull(),
    month: text('month').notNull(),
    shard: integer('shard').notNull().default(0),
    events: tally('events'),
    judgeEvaluations: tally('judge_evaluations'),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.month, t.shard] })],
);

/**
 * One analysis run of one experiment: a nightly day (label `YYYY-MM-DD`, replaced when the
 * day is re-run) or a manual preliminary run (label `manual-<ISO instant>`, kept for good).
 */
export const analysisRuns = pgTable(
  'analysis_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id').notNull(),
    experimentId: uuid('experiment_id').notNull(),
    label: text('label').notNull(),
    kind: text('kind').$type<RunKind>().notNull(),
    windowStart: at('window_start').notNull(),
    windowEnd: at('window_end').notNull(),
    computedAt: stampedNow('computed_at'),
    /** Whether every arm had enough evaluated events for results (the run has computed rows). */
    hasResults: boolean('has_results').notNull(),
    srm: jsonb('srm').$type<SrmStatus>().notNull(),
    results: jsonb('results').$type<Record<string, MetricResult>>().notNull(),
    arms: jsonb('arms').$type<Record<string, ArmStatus>>().notNull(),
    /** The run's recommendation; null for runs stored before decisions (migration 0012). */
    decision: jsonb('decision').$type<Decision>(),
    /**
     * The fold position the run saw: every event accepted before this instant was in the
     * aggregates it read. Null for runs stored before it was recorded (migration 0010).
     */
    foldedThrough: at('folded_through'),
    /**
     * Each computed breakdown dimension's slices (exploratory; migration 0014): every declared
     * dimension on nightly runs, the asked one on manual runs; empty when none was computed.
     */
    slices: jsonb('slices').$type<StoredSlices>().notNull().default({}),
    /**
     * The last nightly run of a stopped experiment: the day it stopped, its window ending at
     * the stop instant. No nightly run follows it.
     */
    final: boolean('final').notNull().default(false),
  },
  (t) => [
    uniqueIndex('analysis_runs_experiment_label').on(t.experimentId, t.label),
    index('analysis_runs_experiment_computed').on(t.experimentId, t.computedAt),
  ],
);

/**
 * Every manual run's label, taken before the run computes, under the experiment's row lock:
 * labels are unique (two runs in one millisecond get consecutive instants) and the hourly
 * limit counts runs still computing. A run that fails gives its label back.
 */
export const manualRunLabels = pgTable(
  'manual_run_labels',
  {
    experimentId: uuid('experiment_id').notNull(),
    label: text('label').notNull(),
    takenAt: at('taken_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.experimentId, t.label] }),
    index('manual_run_labels_taken').on(t.experimentId, t.takenAt),
  ],
);

/** A metric's test chosen over its method_default; changing it is audit-logged. */
export const metricMethodOverrides = pgTable(
  'metric_method_overrides',
  {
    experimentId: uuid('experiment_id').notNull(),
    metric: text('metric').notNull(),
    method: text('method').notNull(),
    setBy: uuid('set_by'),
    setAt: stampedNow('set_at'),
  },
  (t) => [primaryKey({ columns: [t.experimentId, t.metric] })],
);

/** A judge model's score of one model call for one judge metric. */
export const judgeScores = pgTable(
  'judge_scores',
  {
    orgId: uuid('org_id').notNull(),
    experimentId: uuid('experiment_id').notNull(),
    metric: text('metric').notNull(),
    eventId: text('event_id').notNull(),
    userId: text('user_id').notNull(),
    variant: text('variant').notNull(),
    day: utcDay(),
    score: doublePrecision('score').notNull(),
    scoredAt: stampedNow('scored_at'),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.experimentId, t.metric, t.eventId] }),
    index('judge_scores_experiment_day').on(t.experimentId, t.metric, t.day),
  ],
);

/** Raw events before this instant were purged by retention (aggregates stay). */
export const retentionWatermarks = pgTable('retention_watermarks', {
  orgId: uuid('org_id').primaryKey(),
  purgedBefore: at('purged_before').notNull(),
});

/** Who runs a singleton job (the nightly pipeline) until when. */
export const pipelineLeases = pgTable('pipeline_leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: at('expires_at').notNull(),
});

/**
 * A plan pinned by a platform owner: it wins over the billing provider, and no billing
 * webhook touches this table. Clearing it deletes the row.
 */
export const planOverrides = pgTable('plan_overrides', {
  orgId: primaryRef('org_id', () => orgs.id),
  plan: text('plan').notNull(),
  setByEmail: text('set_by_email'),
  setAt: stampedNow('set_at'),
});

/** The org's customer at the billing provider, created once at its first checkout. */
export const billingAccounts = pgTable('billing_accounts', {
  orgId: primaryRef('org_id', () => orgs.id),
  customerId: text('customer_id').notNull().unique(),
  createdAt: createdAt(),
});

/**
 * The last applied state of each billing subscription, as its webhooks told it.
 * `lastEventCreated` orders deliveries: an event created before it changes nothing.
 */
export const billingSubscriptions = pgTable(
  'billing_subscriptions',
  {
    subscriptionId: text('subscription_id').primaryKey(),
    orgId: orgRef(),
    customerId: text('customer_id'),
    /** The plan of the first item's price; null when the price is none of ours. */
    plan: text('plan'),
    priceId: text('price_id'),
    status: text('status').notNull(),
    currentPeriodEnd: at('current_period_end'),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    lastEventCreated: at('last_event_created').notNull(),
    lastEventId: text('last_event_id').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [index('billing_subscriptions_org').on(t.orgId)],
);

/** Billing webhook event ids already applied: a replayed delivery is acknowledged, not re-applied. */
export const billingWebhookEvents = pgTable('billing_webhook_events', {
  eventId: text('event_id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: stampedNow('received_at'),
});

/**
 * A message sent through the public contact form, kept for the platform owners' inbox. The
 * row is written before any mail is attempted, so a mail failure never loses a message;
 * `mail_status` says what became of its notification (not_configured, pending, sent, failed).
 */
export const contactMessages = pgTable(
  'contact_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    company: text('company'),
    kind: text('kind').notNull(),
    message: text('message').notNull(),
    /** The sender's address as the server sees it (behind trusted proxies, the forwarded one): the hourly cap counts by it. */
    clientIp: text('client_ip').notNull(),
    mailStatus: text('mail_status').notNull(),
    mailError: text('mail_error'),
    createdAt: createdAt(),
  },
  (t) => [
    index('contact_messages_ip_time').on(t.clientIp, t.createdAt),
    index('contact_messages_time').on(t.createdAt),
  ],
);

/** One nightly pipeline run that this deployment carried out: its day and how it ended. */
export const nightlyRuns = pgTable(
  'nightly_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    day: utcDay(),
    startedAt: at('started_at').notNull(),
    finishedAt: at('finished_at').notNull(),
    /** `succeeded` or `failed`. */
    outcome: text('outcome').notNull(),
    experiments: integer('experiments').notNull(),
    error: text('error'),
  },
  (t) => [index('nightly_runs_finished').on(t.finishedAt)],
);

/**
 * An org's dataset for offline evaluation. Versioned as a whole: every change (an upload, a
 * deletion) mints `current_version + 1`, and a run pins the version it read.
 */
export const datasets = pgTable(
  'datasets',
  {
    ...orgOwned(),
    name: text('name').notNull(),
    description: text('description'),
    currentVersion: integer('current_version').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('datasets_org_name').on(t.orgId, t.name)],
);

/**
 * A saved group: a named list of values (user ids, emails, countries…) that targeting
 * conditions test with `$inGroup`/`$notInGroup` by `key`, shipped in the client config.
 */
export const savedGroups = pgTable(
  'saved_groups',
  {
    ...orgOwned(),
    key: text('key').notNull(),
    description: text('description'),
    values: jsonb('values').$type<Array<string | number>>().notNull(),
    /** Rises with every change, as an experiment's versions do. */
    version: integer('version').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('saved_groups_org_key').on(t.orgId, t.key)],
);

/**
 * A layer (docs/decisions/targeting.md#layers): experiments in it own disjoint runs of its buckets.
 * `runs` is every run ever handed out, owned or retired; a retired run is never handed out
 * again, so a bucket once owned never reaches another experiment.
 */
export const layers = pgTable(
  'layers',
  {
    ...orgOwned(),
    name: text('name').notNull(),
    description: text('description'),
    salt: text('salt').notNull(),
    bucketCount: integer('bucket_count').notNull(),
    runs: jsonb('runs').$type<LayerRun[]>().notNull(),
    /** Rises with every change of the runs. */
    version: integer('version').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('layers_org_name').on(t.orgId, t.name)],
);

/**
 * A holdout (docs/decisions/targeting.md#holdouts). Its id is the id of the experiment row of kind
 * `holdout` that holds its salt, bucket count, percent (as the allocation) and metrics.
 */
export const holdouts = pgTable(
  'holdouts',
  {
    id: primaryRef('id', () => experiments.id),
    orgId: orgRef(),
    name: text('name').notNull(),
    /** `"all"` (every experiment created after the holdout) or a list of experiment ids. */
    experiments: jsonb('experiments').$type<'all' | string[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('holdouts_org_name').on(t.orgId, t.name)],
);

/** One row per version of a dataset: what the change was and how many items the version holds. */
export const datasetVersions = pgTable(
  'dataset_versions',
  {
    datasetId: ref('dataset_id', () => datasets.id),
    version: integer('version').notNull(),
    itemCount: integer('item_count').notNull(),
    /** `created`, `items_uploaded` or `item_deleted`. */
    change: text('change').notNull(),
    ...authored(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.version] })],
);

/**
 * Items, each stored once per change of it (docs/decisions/offline-evaluation.md#datasets): a row holds in the
 * versions from `valid_from` up to, not including, `valid_to` (null: still current). Version v
 * holds the rows with valid_from <= v < valid_to; at most one row of an item id is current.
 */
export const datasetItems = pgTable(
  'dataset_items',
  {
    datasetId: ref('dataset_id', () => datasets.id),
    itemId: text('item_id').notNull(),
    validFrom: integer('valid_from').notNull(),
    validTo: integer('valid_to'),
    input: jsonb('input').$type<string | Record<string, unknown>>().notNull(),
    expectedOutput: jsonb('expected_output').$type<unknown>(),
    variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    group: text('group'),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.itemId, t.validFrom] }),
    uniqueIndex('dataset_items_current').on(t.datasetId, t.itemId).where(sql`${t.validTo} is null`),
  ],
);

/**
 * An offline evaluation run: a dataset version through some variants of an experiment version,
 * `repeats` times each. `status` is `running` (taking results), `scoring`, then `complete` or
 * `failed`; `result` holds the coverage and statistics once complete.
 */
export const offlineRuns = pgTable(
  'offline_runs',
  {
    ...orgOwned(),
    experimentId: ref('experiment_id', () => experiments.id),
    experimentVersion: integer('experiment_version').notNull(),
    datasetId: ref('dataset_id', () => datasets.id),
    datasetVersion: integer('dataset_version').notNull(),
    /** The variant keys run, the baseline first. */
    variants: jsonb('variants').$type<string[]>().notNull(),
    repeats: integer('repeats').notNull(),
    /** The scorers as normalised at creation (direction and margin filled in). */
    scorers: jsonb('scorers').$type<Record<string, unknown>[]>().notNull(),
    note: text('note'),
    status: text('status').notNull(),
    failureReason: text('failure_reason'),
    itemCount: integer('item_count').notNull(),
    expectedResults: integer('expected_results').notNull(),
    result: jsonb('result').$type<Record<string, unknown>>(),
    ...authored(),
    completedAt: at('completed_at'),
    /**
     * The lease of whoever is scoring the run (a process's mark and a job id) and when it ends:
     * a run left in `scoring` by a holder that died is taken over once the lease has passed.
     */
    scoringHolder: text('scoring_holder'),
    scoringExpiresAt: at('scoring_expires_at'),
  },
  (t) => [
    index('offline_runs_experiment').on(t.experimentId, t.createdAt),
    index('offline_runs_scoring').on(t.scoringExpiresAt).where(sql`${t.status} = 'scoring'`),
  ],
);

/**
 * One result of a run: what the task gave for (item, variant, repeat); the first one kept.
 * No foreign key on run_id (migration 0022): every write of results holds the run's row
 * locked, and the per-row check cost a third of PostgreSQL's CPU at a million results
 * (docs/decisions/offline-evaluation.md#offline-runs). Deleting a run must delete its results first.
 */
export const offlineResults = pgTable(
  'offline_results',
  {
    runId: uuid('run_id').notNull(),
    itemId: text('item_id').notNull(),
    variant: text('variant').notNull(),
    repeat: integer('repeat').notNull(),
    output: jsonb('output').$type<unknown>(),
    error: text('error'),
    latencyMs: doublePrecision('latency_ms'),
    inputTokens: bigint('input_tokens', { mode: 'number' }),
    outputTokens: bigint('output_tokens', { mode: 'number' }),
    cost: doublePrecision('cost'),
    model: text('model'),
    scores: jsonb('scores').$type<Record<string, number>>().notNull().default({}),
    /** The row's canonical JSON: the same row sent again is a duplicate, another a conflict. */
    fingerprint: text('fingerprint').notNull(),
    receivedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.itemId, t.variant, t.repeat] })],
);

/** The judge's score of each result it scored (built-in scorers' values are computed). */
export const offlineScores = pgTable(
  'offline_scores',
  {
    runId: ref('run_id', () => offlineRuns.id),
    scorer: text('scorer').notNull(),
    variant: text('variant').notNull(),
    itemId: text('item_id').notNull(),
    repeat: integer('repeat').notNull(),
    value: doublePrecision('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.scorer, t.variant, t.itemId, t.repeat] })],
);

/**
 * In the control database: the shard set as first migrated (ARBITER_SHARD_URLS), one row per
 * position with the identity of the database found there. A start whose shards differ in count
 * or order from these rows is refused: users would be looked for on the wrong server.
 */
export const shardSet = pgTable('shard_set', {
  position: integer('position').primaryKey(),
  shardId: uuid('shard_id').notNull(),
  shardCount: integer('shard_count').notNull(),
  recordedAt: stampedNow('recorded_at'),
});

/** On each shard: who it is (written once, at the first migrate of the shard set) and its position. */
export const shardIdentity = pgTable('shard_identity', {
  id: integer('id').primaryKey(),
  shardId: uuid('shard_id').notNull(),
  position: integer('position').notNull(),
  shardCount: integer('shard_count').notNull(),
});

/**
 * Users who reached an experiment's targeting per UTC day, as the client libraries and
 * `POST /v1/assign` report them (docs/decisions/targeting.md#the-share-of-users-targeting-excluded):
 * `matched` entered, `excluded` got null. Sums of what was reported; never read by the analysis.
 */
export const targetingTallies = pgTable(
  'targeting_tallies',
  {
    orgId: uuid('org_id').notNull(),
    experimentId: uuid('experiment_id').notNull(),
    day: utcDay(),
    matched: tally('matched'),
    excluded: tally('excluded'),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.experimentId, t.day] })],
);

/**
 * Where an org's outbound webhooks go (docs/webhooks.md). `event_types` empty means every
 * type. The signing secret is sealed by the secret box; during a rotation the previous one is
 * kept, sealed, until `previous_secret_expires_at`, and both signatures are sent.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    ...orgOwned(),
    url: text('url').notNull(),
    /** `webhook` (signed JSON) or `slack` (a Block Kit message to an incoming-webhook URL). */
    kind: text('kind').notNull().default('webhook'),
    description: text('description').notNull().default(''),
    eventTypes: jsonb('event_types').$type<string[]>().notNull().default([]),
    enabled: boolean('enabled').notNull().default(true),
    secretCiphertext: text('secret_ciphertext').notNull(),
    previousSecretCiphertext: text('previous_secret_ciphertext'),
    previousSecretExpiresAt: at('previous_secret_expires_at'),
    /** The first failed attempt since the last success; null while the endpoint answers. */
    failingSince: at('failing_since'),
    /** Why the server disabled the endpoint; null when a person did, or it is enabled. */
    disabledReason: text('disabled_reason'),
    ...authored(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_endpoints_org').on(t.orgId)],
);

/**
 * The outbound webhook queue: one row per event and endpoint. A worker claims a due row by
 * moving `next_attempt_at` past its lease, POSTs it, and records the outcome; `pending` rows
 * are retried with backoff until `failed`.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id').notNull(),
    endpointId: ref('endpoint_id', () => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The event's stable id, sent as `webhook-id`: the same on every attempt. */
    messageId: text('message_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The exact body signed and sent. */
    body: text('body').notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at').notNull(),
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: at('finished_at'),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt),
  ],
);

/**
 * Every attempt of a delivery, as made: the receiver's status, the first 1 KiB of its answer,
 * how long it took, or why there was no answer. `attempt` counts from 1 per delivery.
 */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    deliveryId: ref('delivery_id', () => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    startedAt: at('started_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    error: text('error'),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.attempt] })],
);

/**
 * Events sent at most once by what they are about (`usage.threshold:<org>:<month>:<percent>`):
 * the transaction that queues one inserts its key first, and a second finds it taken.
 */
export const webhookEventKeys = pgTable('webhook_event_keys', {
  key: text('key').primaryKey(),
  orgId: uuid('org_id').notNull(),
  messageId: text('message_id').notNull(),
  createdAt: createdAt(),
});

/**
 * The ramp of an experiment with a rollout (docs/rollouts.md): one row from its start, the
 * step it is at (0-based), when the current step's hold ends (`advance_at`; null at the last
 * step or while paused) and when the guard next evaluates it (`guard_at`). `state`: running,
 * paused (by the guard or a user) or ended (the experiment stopped).
 */
export const experimentRollouts = pgTable(
  'experiment_rollouts',
  {
    experimentId: primaryRef('experiment_id', () => experiments.id),
    orgId: orgRef(),
    state: text('state').$type<'running' | 'paused' | 'ended'>().notNull(),
    step: integer('step').notNull(),
    stepStartedAt: at('step_started_at').notNull(),
    advanceAt: at('advance_at'),
    guardAt: at('guard_at'),
    pausedBy: text('paused_by').$type<'guard' | 'user'>(),
    pausedReason: text('paused_reason'),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('experiment_rollouts_advance_due').on(t.advanceAt).where(sql`state = 'running'`),
    index('experiment_rollouts_guard_due').on(t.guardAt).where(sql`state = 'running'`),
  ],
);

/** One evaluation of a ramp's guard: what it saw and what it did; once per experiment and instant. */
export const rolloutEvaluations = pgTable(
  'rollout_evaluations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    experimentId: ref('experiment_id', () => experiments.id),
    orgId: uuid('org_id').notNull(),
    evaluatedAt: at('evaluated_at').notNull(),
    step: integer('step').notNull(),
    coverage: doublePrecision('coverage').notNull(),
    srmP: doublePrecision('srm_p'),
    guardrails: jsonb('guardrails').$type<GuardrailReading[]>().notNull(),
    action: text('action').$type<'none' | 'paused' | 'rolled_back'>().notNull(),
    reason: text('reason'),
  },
  (t) => [uniqueIndex('rollout_evaluations_once').on(t.experimentId, t.evaluatedAt)],
);

/**
 * A prompt (docs/prompts.md): a named, versioned template of the org. `latest_version` is the
 * number of its newest version (0 before the first); versions are never changed once written.
 */
export const prompts = pgTable(
  'prompts',
  {
    ...orgOwned(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    latestVersion: integer('latest_version').notNull().default(0),
    ...authored(),
  },
  (t) => [uniqueIndex('prompts_org_name').on(t.orgId, t.name)],
);

/** One immutable version of a prompt: numbered 1, 2, … in the order they were written. */
export const promptVersions = pgTable(
  'prompt_versions',
  {
    promptId: ref('prompt_id', () => prompts.id),
    version: integer('version').notNull(),
    template: jsonb('template').$type<PromptTemplate>().notNull(),
    variables: jsonb('variables').$type<string[]>().notNull().default([]),
    modelSettings: jsonb('model_settings').$type<Record<string, unknown>>(),
    note: text('note').notNull().default(''),
    ...authored(),
  },
  (t) => [primaryKey({ columns: [t.promptId, t.version] })],
);

/** Where each label of a prompt points now; its moves are the audit log's `prompt.label_moved`. */
export const promptLabels = pgTable(
  'prompt_labels',
  {
    promptId: ref('prompt_id', () => prompts.id),
    label: text('label').notNull(),
    version: integer('version').notNull(),
    movedBy: uuid('moved_by').references(() => users.id),
    movedAt: stampedNow('moved_at'),
  },
  (t) => [primaryKey({ columns: [t.promptId, t.label] })],
);

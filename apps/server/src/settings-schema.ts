import { type Static, type TSchema, Type } from 'typebox';

/**
 * Every ARBITER_* variable the server reads: its type, default and meaning. The README's
 * "Settings" table is this schema in prose; a test holds the two equal.
 *
 * `errorMessage` (the ajv-errors keyword) is what a value that breaks the constraint is told;
 * `{value}` stands for the value as set. It is left out of messages whose value may be a
 * credential (a database URL with its password, the secret key).
 */

export const DEV_SESSION_ISSUER = 'arbiter-dev';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// The property order is the order settings are checked in: the first bad one is reported.
export const SettingsSchema = Type.Object({
  ARBITER_HOST: Type.String({ default: '127.0.0.1', description: 'listen address' }),
  ARBITER_DATA_DIR: Type.String({
    default: './.arbiter',
    description: 'embedded PGlite database and development keys',
  }),
  ARBITER_DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      errorMessage: 'expected a postgres:// or postgresql:// URL',
      description: '`postgres://…`: use a PostgreSQL server instead of PGlite',
    }),
  ),
  ARBITER_MIN_FREE_DISK_BYTES: Type.Integer({
    minimum: 0,
    maximum: 1024 * 1024 * 1024 * 1024,
    default: 256 * 1024 * 1024,
    description:
      'embedded PGlite: below this much free space on the data dir’s file system writes answer 507 until space is back (several 16 MiB WAL segments)',
  }),
  ARBITER_DATABASE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 60_000,
    description:
      'longest one database call may take (a statement, or waiting for a pooled connection); past it the request answers 503',
  }),
  // Before the JWKS setting: the rule that refuses development sessions off loopback reads it.
  ARBITER_DEV_SESSIONS_OFF_LOOPBACK: Type.Boolean({
    default: false,
    description:
      'true allows development sessions (no JWKS) on a non-loopback ARBITER_HOST, for a local trial such as the container image with `-p 8080:8080`; anyone who reaches the port can sign in as anyone, so every start logs a warning. Never in production',
  }),
  ARBITER_SESSION_JWKS_URL: Type.Optional(
    Type.String({
      description:
        "identity provider's JWKS (https URL or file path). Unset = development sessions, refused on a non-loopback host unless ARBITER_DEV_SESSIONS_OFF_LOOPBACK",
    }),
  ),
  ARBITER_SESSION_ISSUER: Type.String({
    default: DEV_SESSION_ISSUER,
    description: 'expected `iss` of session tokens (required with a JWKS)',
  }),
  ARBITER_SESSION_AUDIENCE: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'expected `aud` of session tokens: a token for another audience is refused (401). Required with a JWKS, refused without one',
    }),
  ),
  ARBITER_SESSION_AUTHORIZED_PARTIES: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'comma-separated `azp` values a session token may carry besides ARBITER_SESSION_AUDIENCE (Clerk sets `azp` to the origin that asked for the token, e.g. the dashboard’s). A token with another `azp`, or with several audiences and no `azp`, is refused (401). Needs a JWKS',
    }),
  ),
  ARBITER_SECRET_KEY: Type.Optional(
    Type.String({
      minLength: 32,
      errorMessage: 'must be at least 32 characters',
      description:
        '≥ 32 characters; encrypts stored raw keys and webhook secrets (AES-256-GCM). Unset in development: generated in the data dir',
    }),
  ),
  ARBITER_LOG_LEVEL: Type.Union(
    LOG_LEVELS.map((level) => Type.Literal(level)),
    {
      default: 'info',
      errorMessage: `expected one of ${LOG_LEVELS.join(', ')}`,
      description: 'pino level',
    },
  ),
  ARBITER_LOG_FORMAT: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('pretty')], {
      errorMessage: 'expected json or pretty',
      description:
        '`json` (one JSON object per line) or `pretty` (short readable lines). Unset: pretty when stdout is a terminal, JSON otherwise',
    }),
  ),
  ARBITER_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 8080,
    description: 'listen port',
  }),
  ARBITER_PLATFORM_OWNER_EMAILS: Type.Optional(
    Type.String({
      pattern: '^[ -~]*$',
      errorMessage: 'expected ASCII email addresses, comma-separated',
      description:
        'comma-separated sign-in emails of platform owners (ASCII; compared case-insensitively in ASCII only, and a token whose `email_verified` is false never matches)',
    }),
  ),
  ARBITER_TRUST_PROXY: Type.String({
    pattern: '^(true|false|\\d+|[0-9A-Fa-f.:/]+(\\s*,\\s*[0-9A-Fa-f.:/]+)*)$',
    default: 'false',
    errorMessage:
      'expected true, false, a number of proxy hops or comma-separated proxy addresses/CIDRs, got "{value}"',
    description:
      'which reverse proxies to believe about the client address (`X-Forwarded-For`): false, true (any), a hop count, or comma-separated addresses/CIDRs',
  }),
  ARBITER_BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 64 * 1024 * 1024,
    default: 1024 * 1024,
    description: 'largest accepted request body',
  }),
  ARBITER_ENFORCE_LIMITS: Type.Optional(
    Type.Boolean({
      description:
        'apply plan allowances (events past the monthly allowance answer 429). Unset = applied only when billing is configured (ARBITER_STRIPE_SECRET_KEY set), so a self-hosted server without billing has no cap',
    }),
  ),
  ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 100_000_000,
    default: 6_000,
    description: 'ingest requests per minute per publishable key',
  }),
  ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: Type.Integer({
    minimum: 1,
    maximum: 100_000_000,
    default: 60_000,
    description: 'ingest requests per minute per secret key',
  }),
  ARBITER_IMPORT_CONCURRENCY_PER_ORG: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description:
      'bulk imports one org may run at once in this process, and as many dataset uploads (counted apart); more answer 429 with `Retry-After`',
  }),
  ARBITER_MAX_CONFIG_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 64 * 1024 * 1024,
    default: 1024 * 1024,
    description:
      "largest experiment config (its JSON, after a PUT's merge), whatever the body limit; larger is refused with 413",
  }),
  ARBITER_MAX_DATASET_ITEMS: Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 10_000,
    description:
      'most items one dataset version may hold; an upload row that would add one more is reported as a row error and skipped',
  }),
  ARBITER_MAX_DATASET_ITEM_BYTES: Type.Integer({
    minimum: 64,
    maximum: 64 * 1024 * 1024,
    default: 256 * 1024,
    description:
      'largest dataset item, as the compact JSON of its fields; a larger row is reported as a row error and skipped',
  }),
  ARBITER_MAX_ORG_CONFIG_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 1024 * 1024 * 1024,
    default: 16 * 1024 * 1024,
    description:
      "total JSON of an org's current experiment configs (what `/v1/config` serves); a create or PUT past it is refused with 413",
  }),
  ARBITER_INGEST_WORKER: Type.Boolean({
    default: true,
    description: 'run the aggregation worker in this process',
  }),
  ARBITER_KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: '^[^\\s,:]+:\\d+(,[^\\s,:]+:\\d+)*$',
      errorMessage: 'expected comma-separated host:port pairs',
      description:
        'comma-separated `host:port` of Kafka brokers: accepted events go to a Kafka topic before the 202 and fold workers consume it; unset = the database is the event log',
    }),
  ),
  ARBITER_KAFKA_TOPIC: Type.String({
    pattern: '^[A-Za-z0-9._-]{1,249}$',
    default: 'arbiter.events',
    errorMessage: 'expected a Kafka topic name (letters, digits, ".", "_", "-")',
    description: 'the Kafka topic of accepted events, with `ARBITER_KAFKA_BROKERS`',
  }),
  ARBITER_SHARD_URLS: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://[^\\s,]+(,postgres(ql)?://[^\\s,]+)*$',
      errorMessage: 'expected comma-separated postgres:// or postgresql:// URLs',
      description:
        "comma-separated `postgres://` URLs of the PostgreSQL servers that hold event data (events, per-user daily aggregates, judge scores, quarantine), in a fixed order: a user's rows live on the shard its org and user id hash to. Needs `ARBITER_DATABASE_URL` (the control database); the count and order are recorded at the first `arbiter migrate` and may not change. Unset = one shard, the database itself",
    }),
  ),
  ARBITER_KAFKA_METERING: Type.Union([Type.Literal('acceptance'), Type.Literal('fold')], {
    default: 'acceptance',
    errorMessage: 'expected acceptance or fold',
    description:
      "where the Kafka path de-duplicates and meters events, with `ARBITER_KAFKA_BROKERS`: `acceptance` claims each event id in PostgreSQL before the 202, which reports retried and conflicting ids as the single node does and cuts an enforced allowance exactly; `fold` produces without a claim and the fold stores each id once and meters what it stored (less than half the Kafka path's extra CPU an event), the 202 reporting only repeats within its request, a reused id with other content dropped at the fold, and an enforced allowance overshot by the events not folded yet. `fold` needs the database to be the one shard",
  }),
  ARBITER_BLOB_URL: Type.Optional(
    Type.String({
      pattern: '^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\\s]*)?$',
      errorMessage: 'expected s3://bucket or s3://bucket/prefix, got "{value}"',
      description:
        "`s3://bucket/prefix`: model calls' prompt and response go to this S3 bucket (created when missing) before the 202, the event row keeps a reference; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION. Unset = text stays in the row",
    }),
  ),
  ARBITER_BLOB_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://',
      errorMessage: 'expected an http:// or https:// URL, got "{value}"',
      description:
        'the S3-compatible server of `ARBITER_BLOB_URL` (MinIO, versitygw, R2…), addressed path-style; unset = AWS S3',
    }),
  ),
  // Five fields, minute to weekday; checked for shape here, fully by the scheduler at start.
  ARBITER_NIGHTLY_CRON: Type.String({
    pattern: '^\\S+(\\s+\\S+){4}$',
    default: '15 0 * * *',
    errorMessage: 'expected a 5-field cron expression, got "{value}"',
    description: 'when the nightly analysis of the previous UTC day runs (UTC)',
  }),
  ARBITER_SCHEDULER: Type.Boolean({
    default: true,
    description:
      'run the nightly scheduler in this process (one runner at a time across processes)',
  }),
  ARBITER_MIN_EVENTS_PER_ARM: Type.Integer({
    minimum: 1,
    maximum: 1_000_000_000,
    default: 200,
    description: 'evaluated events every arm needs before results appear',
  }),
  ARBITER_CONTACT_PER_IP_PER_HOUR: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 5,
    description: 'contact-form messages accepted per client address per hour',
  }),
  ARBITER_SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://[^\\s]+$',
      errorMessage: 'expected an smtp:// or smtps:// URL',
      description:
        '`smtp(s)://user:pass@host:port`: mail contact messages to the platform owners; unset = kept for the inbox only',
    }),
  ),
  ARBITER_SMTP_FROM: Type.String({
    default: 'Arbiter <no-reply@arbiter.invalid>',
    description: 'sender of the mail to platform owners',
  }),
  ARBITER_SEQUENTIAL_TUNING: Type.Integer({
    minimum: 1,
    maximum: 1_000_000_000,
    default: 5000,
    description:
      'users (both arms) at which the always-valid interval of manual runs is narrowest (GrowthBook’s sequential tuning parameter)',
  }),
  ARBITER_ANALYSIS_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description:
      'experiments the nightly run analyses at once on a PostgreSQL server (about one core each; the embedded database runs them in turn)',
  }),
  ARBITER_RUN_FOLD_WAIT_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: 10_000,
    description:
      'how long a requested analysis (manual run, pipeline route) waits for the fold to take in every event accepted before it, before answering 503 with Retry-After',
  }),
  ARBITER_FOLD_GATHER_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 1000,
    description:
      "the least time between the starts of two folds of the aggregation worker while each takes every stored event and this process's appends keep coming (a backlog is folded without waits, and a 50 ms pause in this process's appends ends the wait): larger folds cost the database less an event, and the aggregates (the live view, the fold lag on `/readyz` and `/metrics`) trail the log by up to this much; 0 folds events as they arrive",
  }),
  ARBITER_READY_MAX_FOLD_LAG_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 300,
    description:
      '`/readyz` answers 503 while the oldest event not yet folded into the aggregates has waited longer than this',
  }),
  ARBITER_DASHBOARD_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/]+(/[^\\s]*)?$',
      errorMessage: 'expected an http:// or https:// URL',
      description:
        "where the dashboard is served: Slack messages link to its pages; unset = they name the page's path",
    }),
  ),
  ARBITER_WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description:
      'true lets webhook endpoints use http and reach loopback, private and link-local addresses, for self-hosted and test set-ups; off, an endpoint is https and every address it resolves to must be public',
  }),
  ARBITER_METRICS: Type.Boolean({
    default: false,
    description: 'serve `GET /metrics` in the Prometheus text format (off: 404)',
  }),
  ARBITER_METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      errorMessage: 'must be at least 16 characters',
      description:
        'when set, a scrape of `/metrics` must send `Authorization: Bearer <token>` (401 otherwise); unset = open to anyone who reaches the listener',
    }),
  ),
  ARBITER_METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description:
        'when set, `GET /metrics` is served on a listener of its own on this port (same host, same token rule) and not on the main one; unset = on the main listener',
    }),
  ),
  ARBITER_SHUTDOWN_DELAY_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 300,
    default: 2,
    description:
      'on SIGTERM or SIGINT, how long the listener keeps serving with `/readyz` at 503 so load balancers notice, before it closes',
  }),
  ARBITER_SHUTDOWN_GRACE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 10,
    description:
      'on SIGTERM or SIGINT, how long the whole shutdown may take (the delay included) before the process stops hard (exit 1, one log line)',
  }),
  ARBITER_MANUAL_RUNS_PER_HOUR: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 20,
    description: 'manual analysis runs per experiment per hour (429 with Retry-After beyond)',
  }),
  ARBITER_JUDGE_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      errorMessage: 'expected an http(s) URL, got "{value}"',
      description:
        'OpenAI-compatible chat-completions endpoint of the judge model; unset = judge metrics not scored',
    }),
  ),
  ARBITER_JUDGE_API_KEY: Type.Optional(Type.String({ description: "the judge model's key" })),
  ARBITER_JUDGE_MODEL: Type.String({
    default: 'gpt-4o-mini',
    description: "the judge model's name",
  }),
  ARBITER_JUDGE_SAMPLE_PER_RUN: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 200,
    description: 'model calls scored per judge metric per nightly run',
  }),
  ARBITER_CLERK_WEBHOOK_SECRET: Type.Optional(
    Type.String({
      pattern: '^(whsec_)?[A-Za-z0-9+/]+=*$',
      errorMessage: 'expected the webhook endpoint’s signing secret (whsec_…)',
      description:
        'signing secret (`whsec_…`) of the identity webhook endpoint `/v1/webhooks/clerk`; unset = identity webhooks refused (401)',
    }),
  ),
  ARBITER_CLERK_SECRET_KEY: Type.Optional(
    Type.String({
      description:
        "identity provider's Backend API secret key (`sk_…`); unset = seat resync answers 409",
    }),
  ),
  ARBITER_CLERK_API_URL: Type.String({
    pattern: '^https?://[^\\s]+$',
    default: 'https://api.clerk.com',
    errorMessage: 'expected an http(s) URL, got "{value}"',
    description: "base URL of the identity provider's Backend API",
  }),
  ARBITER_STRIPE_SECRET_KEY: Type.Optional(
    Type.String({
      description: 'Stripe secret API key; unset = billing not configured (checkout answers 409)',
    }),
  ),
  ARBITER_STRIPE_API_BASE: Type.String({
    pattern: '^https?://[^\\s/]+/?$',
    default: 'https://api.stripe.com',
    errorMessage: 'expected an http(s) origin such as https://api.stripe.com, got "{value}"',
    description: "Stripe's API origin (a local server speaking Stripe's API in tests)",
  }),
  ARBITER_STRIPE_WEBHOOK_SECRET: Type.Optional(
    Type.String({
      description:
        'signing secret (`whsec_…`) of the Stripe endpoint `/v1/webhooks/stripe`; unset = deliveries refused with 401',
    }),
  ),
  ARBITER_STRIPE_PRICE_PRO: Type.Optional(
    Type.String({ description: 'Stripe price id of the pro plan' }),
  ),
  ARBITER_STRIPE_PRICE_BUSINESS: Type.Optional(
    Type.String({ description: 'Stripe price id of the business plan' }),
  ),
});

export type Settings = Static<typeof SettingsSchema>;
export type SettingName = keyof Settings;

export const SETTING_NAMES = Object.keys(SettingsSchema.properties) as SettingName[];

/** The JSON Schema keywords of one setting that reading and documenting it rely on. */
export type SettingSchema = TSchema & {
  type?: string;
  default?: unknown;
  description?: string;
  errorMessage?: string;
  minimum?: number;
  maximum?: number;
};

export function settingSchema(name: SettingName): SettingSchema {
  return SettingsSchema.properties[name];
}

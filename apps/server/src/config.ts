import { isAbsolute, resolve } from 'node:path';
import { Value } from 'typebox/value';
import { asciiLowercase } from './kernel/ascii-lowercase.ts';
import {
  SETTING_NAMES,
  type SettingName,
  type Settings,
  settingSchema,
} from './settings-schema.ts';

export { DEV_SESSION_ISSUER } from './settings-schema.ts';

/**
 * The one place that reads ARBITER_* variables, against the schema in settings-schema.ts.
 * Everything else receives a Config. A bad value stops the start with a message that names
 * the variable.
 *
 * The schema declares each setting once: a setting the Config takes as it is only gets its
 * Config name here (PLAIN), and its type follows from the schema (an unset optional one is
 * null). The rest are worked out from one or more settings (DerivedConfig).
 */
const PLAIN = {
  port: 'ARBITER_PORT',
  host: 'ARBITER_HOST',
  databaseUrl: 'ARBITER_DATABASE_URL',
  minFreeDiskBytes: 'ARBITER_MIN_FREE_DISK_BYTES',
  databaseTimeoutMs: 'ARBITER_DATABASE_TIMEOUT_MS',
  sessionJwksUrl: 'ARBITER_SESSION_JWKS_URL',
  sessionIssuer: 'ARBITER_SESSION_ISSUER',
  sessionAudience: 'ARBITER_SESSION_AUDIENCE',
  secretKey: 'ARBITER_SECRET_KEY',
  logLevel: 'ARBITER_LOG_LEVEL',
  logFormat: 'ARBITER_LOG_FORMAT',
  bodyLimitBytes: 'ARBITER_BODY_LIMIT_BYTES',
  rateLimitPublishablePerMinute: 'ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE',
  rateLimitSecretPerMinute: 'ARBITER_RATE_LIMIT_SECRET_PER_MINUTE',
  importConcurrencyPerOrg: 'ARBITER_IMPORT_CONCURRENCY_PER_ORG',
  maxConfigBytes: 'ARBITER_MAX_CONFIG_BYTES',
  maxOrgConfigBytes: 'ARBITER_MAX_ORG_CONFIG_BYTES',
  maxDatasetItems: 'ARBITER_MAX_DATASET_ITEMS',
  maxDatasetItemBytes: 'ARBITER_MAX_DATASET_ITEM_BYTES',
  ingestWorker: 'ARBITER_INGEST_WORKER',
  foldGatherMs: 'ARBITER_FOLD_GATHER_MS',
  nightlyCron: 'ARBITER_NIGHTLY_CRON',
  scheduler: 'ARBITER_SCHEDULER',
  minEventsPerArm: 'ARBITER_MIN_EVENTS_PER_ARM',
  sequentialTuning: 'ARBITER_SEQUENTIAL_TUNING',
  analysisConcurrency: 'ARBITER_ANALYSIS_CONCURRENCY',
  runFoldWaitMs: 'ARBITER_RUN_FOLD_WAIT_MS',
  manualRunsPerHour: 'ARBITER_MANUAL_RUNS_PER_HOUR',
  readyMaxFoldLagSeconds: 'ARBITER_READY_MAX_FOLD_LAG_SECONDS',
  webhooksAllowPrivate: 'ARBITER_WEBHOOKS_ALLOW_PRIVATE',
  dashboardUrl: 'ARBITER_DASHBOARD_URL',
  metrics: 'ARBITER_METRICS',
  metricsToken: 'ARBITER_METRICS_TOKEN',
  metricsPort: 'ARBITER_METRICS_PORT',
  shutdownDelaySeconds: 'ARBITER_SHUTDOWN_DELAY_SECONDS',
  shutdownGraceSeconds: 'ARBITER_SHUTDOWN_GRACE_SECONDS',
  judgeApiKey: 'ARBITER_JUDGE_API_KEY',
  judgeModel: 'ARBITER_JUDGE_MODEL',
  judgeSamplePerRun: 'ARBITER_JUDGE_SAMPLE_PER_RUN',
  contactPerIpPerHour: 'ARBITER_CONTACT_PER_IP_PER_HOUR',
  smtpUrl: 'ARBITER_SMTP_URL',
  smtpFrom: 'ARBITER_SMTP_FROM',
  clerkWebhookSecret: 'ARBITER_CLERK_WEBHOOK_SECRET',
  clerkSecretKey: 'ARBITER_CLERK_SECRET_KEY',
} as const satisfies Record<string, SettingName>;

/** A setting's value in the Config: as the schema types it, null where unset. */
type PlainValue<N extends SettingName> = undefined extends Settings[N]
  ? Exclude<Settings[N], undefined> | null
  : Settings[N];

export type PlainConfig = { [K in keyof typeof PLAIN]: PlainValue<(typeof PLAIN)[K]> };

/** What the Config works out from the settings rather than taking one as it is. */
export interface DerivedConfig {
  /** ARBITER_DATA_DIR, resolved against the working directory. */
  dataDir: string;
  /** `azp` values a token may carry besides the audience (OIDC's authorized party). */
  sessionAuthorizedParties: string[];
  /** Development sessions on a non-loopback host were allowed for a trial (warned at every start). */
  devSessionsOffLoopback: boolean;
  platformOwnerEmails: string[];
  /** Plan limits (allowances) are applied: ARBITER_ENFORCE_LIMITS, else whether billing is configured. */
  enforceLimits: boolean;
  /**
   * Kafka as the event log: its brokers, topic and where it de-duplicates and meters
   * (ARBITER_KAFKA_METERING); null = the database is the log.
   */
  kafka: { brokers: string[]; topic: string; metering: Settings['ARBITER_KAFKA_METERING'] } | null;
  /** The event data's shards (ARBITER_SHARD_URLS) in their fixed order; empty = the database is the one shard. */
  shardUrls: string[];
  /** Model text in object storage (ARBITER_BLOB_URL); null = the text stays in the row. */
  blob: BlobStoreConfig | null;
  /** `/metrics` is served on a non-loopback host without a token (warned at every start). */
  metricsOpenOffLoopback: boolean;
  /** OpenAI-compatible chat-completions endpoint of the judge model; null = judge metrics not scored. */
  judgeBaseUrl: string | null;
  /** Fastify's `trustProxy`: which proxies' X-Forwarded-For gives the client address. */
  trustProxy: boolean | number | string[];
  clerkApiUrl: string;
  stripe: StripeConfig;
  /**
   * Export OpenTelemetry traces: the standard OTEL_EXPORTER_OTLP_ENDPOINT or
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and neither OTEL_SDK_DISABLED=true nor
   * OTEL_TRACES_EXPORTER=none says otherwise). The SDK reads the other OTEL_* variables itself.
   */
  traces: boolean;
}

export type Config = PlainConfig & DerivedConfig;

/** Billing through Stripe; each part null when unset. */
export interface StripeConfig {
  secretKey: string | null;
  /** The API origin, without a trailing slash. */
  apiBase: string;
  webhookSecret: string | null;
  pricePro: string | null;
  priceBusiness: string | null;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
  }
}

type Env = Record<string, string | undefined>;

/** Where model text is stored with ARBITER_BLOB_URL. */
export interface BlobStoreConfig {
  bucket: string;
  /** The key prefix, ending in "/" (or empty). */
  prefix: string;
  /** An S3-compatible server's URL (addressed path-style); null = AWS S3. */
  endpoint: string | null;
  region: string;
  /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; null = the AWS SDK's default chain. */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

/** A variable's value with surrounding spaces trimmed; empty counts as unset. */
function text(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

const TRUE_WORDS = ['true', '1', 'yes'];
const FALSE_WORDS = ['false', '0', 'no'];

/** A variable's text as its setting's type: the environment holds text, a setting may be a number or a flag. */
function decode(name: SettingName, raw: string): unknown {
  const { type } = settingSchema(name);
  if (type === 'integer') {
    if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
    return Number(raw);
  }
  if (type === 'boolean') {
    if (TRUE_WORDS.includes(raw.toLowerCase())) return true;
    if (FALSE_WORDS.includes(raw.toLowerCase())) return false;
    throw new ConfigError(name, `expected true or false, got "${raw}"`);
  }
  return raw;
}

/** Why a decoded value breaks its setting's schema, in the words the setting's schema gives. */
function schemaProblem(name: SettingName, value: unknown, raw: string): string | undefined {
  const schema = settingSchema(name);
  const [error] = Value.Errors(schema, value);
  if (error === undefined) return undefined;
  if (error.keyword === 'minimum' || error.keyword === 'maximum') {
    return `must be between ${schema.minimum} and ${schema.maximum}, got ${value}`;
  }
  return (schema.errorMessage ?? error.message).replace('{value}', raw);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Rules that tie settings together, checked when the named setting's turn comes. */
const RELATIONS: Partial<
  Record<SettingName, (env: Env, read: Partial<Settings>) => string | undefined>
> = {
  ARBITER_SESSION_JWKS_URL: (_env, read) =>
    read.ARBITER_SESSION_JWKS_URL === undefined &&
    !isLoopback(read.ARBITER_HOST ?? '') &&
    read.ARBITER_DEV_SESSIONS_OFF_LOOPBACK !== true
      ? `required when ARBITER_HOST (${read.ARBITER_HOST}) is not a loopback address: development sessions are refused off this machine (ARBITER_DEV_SESSIONS_OFF_LOOPBACK=true allows them for a local trial)`
      : undefined,
  ARBITER_SESSION_ISSUER: (env, read) =>
    read.ARBITER_SESSION_JWKS_URL !== undefined && text(env, 'ARBITER_SESSION_ISSUER') === null
      ? 'required with ARBITER_SESSION_JWKS_URL'
      : undefined,
  ARBITER_METRICS_PORT: (_env, read) => {
    if (read.ARBITER_METRICS_PORT === undefined) return undefined;
    if (read.ARBITER_METRICS !== true)
      return 'needs ARBITER_METRICS=true: there is nothing to serve';
    return read.ARBITER_METRICS_PORT === read.ARBITER_PORT
      ? `must differ from ARBITER_PORT (${read.ARBITER_PORT}): the metrics get a listener of their own`
      : undefined;
  },
  // The control database (orgs, keys, metering) must be a server every shard's process shares.
  ARBITER_SHARD_URLS: (_env, read) => {
    if (read.ARBITER_SHARD_URLS === undefined) return undefined;
    return read.ARBITER_DATABASE_URL === undefined
      ? 'needs ARBITER_DATABASE_URL: the control database stays a PostgreSQL server of its own'
      : undefined;
  },
  // The fold meters in its own transaction on the shard it stores on; the meter is the control
  // database's, so with shards it would be a second transaction, and a crash between the two
  // would lose what the first stored.
  ARBITER_KAFKA_METERING: (_env, read) =>
    read.ARBITER_KAFKA_METERING === 'fold' && read.ARBITER_SHARD_URLS !== undefined
      ? 'fold needs the database to be the one shard (ARBITER_SHARD_URLS unset): the meter must commit with what the fold stores'
      : undefined,
  ARBITER_BLOB_ENDPOINT: (_env, read) =>
    read.ARBITER_BLOB_ENDPOINT !== undefined && read.ARBITER_BLOB_URL === undefined
      ? 'needs ARBITER_BLOB_URL: it names the bucket the endpoint serves'
      : undefined,
  // Development tokens are minted here without an audience: the setting is for a provider's,
  // whose tokens for its other applications must not open this one.
  ARBITER_SESSION_AUDIENCE: (_env, read) => {
    const jwks = read.ARBITER_SESSION_JWKS_URL !== undefined;
    if (jwks === (read.ARBITER_SESSION_AUDIENCE !== undefined)) return undefined;
    return jwks
      ? 'required with ARBITER_SESSION_JWKS_URL: without it a token the identity provider issued for any of its applications would open this one'
      : 'needs ARBITER_SESSION_JWKS_URL: development sessions carry no audience';
  },
  ARBITER_SESSION_AUTHORIZED_PARTIES: (_env, read) =>
    read.ARBITER_SESSION_AUTHORIZED_PARTIES !== undefined &&
    read.ARBITER_SESSION_JWKS_URL === undefined
      ? 'needs ARBITER_SESSION_JWKS_URL: development sessions carry no authorized party'
      : undefined,
};

/**
 * The environment checked against the settings schema, setting by setting in the schema's
 * order: unset ones take their default, the first bad one stops the start.
 */
export function readSettings(env: Env): Settings {
  const read: Partial<Record<SettingName, unknown>> = {};
  for (const name of SETTING_NAMES) {
    const raw = text(env, name);
    const value = raw === null ? settingSchema(name).default : decode(name, raw);
    if (value !== undefined) {
      const problem = schemaProblem(name, value, raw ?? String(value));
      if (problem !== undefined) throw new ConfigError(name, problem);
      read[name] = value;
    }
    const broken = RELATIONS[name]?.(env, read as Partial<Settings>);
    if (broken !== undefined) throw new ConfigError(name, broken);
  }
  return read as Settings;
}

/** Whether the standard OpenTelemetry variables ask for traces (see `Config.traces`). */
function tracesRequested(env: Env): boolean {
  if (text(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  if (text(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none') return false;
  return (
    text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== null ||
    text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== null
  );
}

/** The setting's text as Fastify's `trustProxy` option. */
function trustProxyOf(value: string): Config['trustProxy'] {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((a) => a.trim());
}

/**
 * Plan allowances apply where plans can be bought: unset, the setting follows whether billing
 * is configured, so a self-hosted server without billing never caps its own orgs at the free
 * plan (docs/decisions/identity-and-billing.md#where-plan-limits-apply). Set, it wins either way.
 */
function enforceLimitsOf(s: Settings): boolean {
  return s.ARBITER_ENFORCE_LIMITS ?? s.ARBITER_STRIPE_SECRET_KEY !== undefined;
}

/**
 * Object storage for model text when ARBITER_BLOB_URL is set. The credentials are the standard
 * AWS variables; without a key pair the AWS SDK's own chain (profile, instance role) applies.
 */
function blobOf(s: Settings, env: Env): Config['blob'] {
  if (s.ARBITER_BLOB_URL === undefined) return null;
  const [bucket = '', ...rest] = s.ARBITER_BLOB_URL.slice('s3://'.length).split('/');
  const prefix = rest.join('/').replace(/^\/+|\/+$/g, '');
  const accessKeyId = text(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = text(env, 'AWS_SECRET_ACCESS_KEY');
  return {
    bucket,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint: s.ARBITER_BLOB_ENDPOINT ?? null,
    region: text(env, 'AWS_REGION') ?? text(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    credentials:
      accessKeyId === null || secretAccessKey === null
        ? null
        : {
            accessKeyId,
            secretAccessKey,
            sessionToken: text(env, 'AWS_SESSION_TOKEN') ?? undefined,
          },
  };
}

/** Kafka as the event log when brokers are set. */
function kafkaOf(s: Settings): Config['kafka'] {
  if (s.ARBITER_KAFKA_BROKERS === undefined) return null;
  return {
    brokers: s.ARBITER_KAFKA_BROKERS.split(','),
    topic: s.ARBITER_KAFKA_TOPIC,
    metering: s.ARBITER_KAFKA_METERING,
  };
}

/** The parts a deployment past one machine puts under Arbiter: the Kafka log, the text store. */
function scaleOutOf(s: Settings, env: Env): Pick<Config, 'kafka' | 'blob' | 'shardUrls'> {
  return {
    kafka: kafkaOf(s),
    blob: blobOf(s, env),
    shardUrls: s.ARBITER_SHARD_URLS?.split(',') ?? [],
  };
}

function devSessionsOffLoopback(s: Settings): boolean {
  return (
    s.ARBITER_SESSION_JWKS_URL === undefined &&
    s.ARBITER_DEV_SESSIONS_OFF_LOOPBACK &&
    !isLoopback(s.ARBITER_HOST)
  );
}

/** The settings the Config takes as they are, by their Config names. */
function plainOf(s: Settings): PlainConfig {
  const entries = Object.entries(PLAIN).map(([key, name]) => [key, s[name] ?? null]);
  return Object.fromEntries(entries) as PlainConfig;
}

/** A comma-separated setting's non-empty items, trimmed. */
function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

export function loadConfig(env: Env, cwd = process.cwd()): Config {
  const s = readSettings(env);
  const dataDir = s.ARBITER_DATA_DIR;
  return {
    ...plainOf(s),
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    devSessionsOffLoopback: devSessionsOffLoopback(s),
    sessionAuthorizedParties: listOf(s.ARBITER_SESSION_AUTHORIZED_PARTIES),
    metricsOpenOffLoopback:
      s.ARBITER_METRICS && s.ARBITER_METRICS_TOKEN === undefined && !isLoopback(s.ARBITER_HOST),
    platformOwnerEmails: (s.ARBITER_PLATFORM_OWNER_EMAILS ?? '')
      .split(',')
      .map((e) => asciiLowercase(e.trim()))
      .filter((e) => e !== ''),
    enforceLimits: enforceLimitsOf(s),
    ...scaleOutOf(s, env),
    judgeBaseUrl: s.ARBITER_JUDGE_BASE_URL?.replace(/\/+$/, '') ?? null,
    trustProxy: trustProxyOf(s.ARBITER_TRUST_PROXY),
    clerkApiUrl: s.ARBITER_CLERK_API_URL.replace(/\/+$/, ''),
    stripe: {
      secretKey: s.ARBITER_STRIPE_SECRET_KEY ?? null,
      apiBase: s.ARBITER_STRIPE_API_BASE.replace(/\/+$/, ''),
      webhookSecret: s.ARBITER_STRIPE_WEBHOOK_SECRET ?? null,
      pricePro: s.ARBITER_STRIPE_PRICE_PRO ?? null,
      priceBusiness: s.ARBITER_STRIPE_PRICE_BUSINESS ?? null,
    },
    traces: tracesRequested(env),
  };
}

export function isDevelopmentSessions(config: Config): boolean {
  return config.sessionJwksUrl === null;
}

import { isAbsolute, resolve } from 'node:path';

/**
 * The one place that reads ARBITER_* variables. Everything else receives a Config.
 * A bad value stops the start with a message that names the variable.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A PostgreSQL server; absent means the embedded PGlite database in dataDir. */
  databaseUrl: string | null;
  /** JWKS as an http(s) URL or a file path; absent means development mode (own key pair). */
  sessionJwksUrl: string | null;
  sessionIssuer: string;
  /** Encrypts stored raw keys and webhook secrets; absent means keys are not revealable. */
  secretKey: string | null;
  platformOwnerEmails: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  /** Plan limits (allowances) are applied; false for self-hosting without billing. */
  enforceLimits: boolean;
  /** Requests per minute per key on the ingest plane. */
  rateLimitPublishablePerMinute: number;
  rateLimitSecretPerMinute: number;
  /** Start the ingest drain worker in this process. */
  ingestWorker: boolean;
  /** Cron expression (UTC) of the nightly analysis of the previous UTC day. */
  nightlyCron: string;
  /** Start the nightly scheduler in this process (one runner at a time across processes). */
  scheduler: boolean;
  /** Results exist once every arm has this many evaluated events (exposures in the window). */
  minEventsPerArm: number;
  /** OpenAI-compatible chat-completions endpoint of the judge model; null = judge metrics not scored. */
  judgeBaseUrl: string | null;
  judgeApiKey: string | null;
  judgeModel: string;
  /** Model calls scored per judge metric per run, at most. */
  judgeSamplePerRun: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
  }
}

export const DEV_SESSION_ISSUER = 'arbiter-dev';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function url(env: Env, name: string): string | null {
  const raw = text(env, name);
  if (raw === null) return null;
  if (!/^https?:\/\/[^\s]+$/.test(raw))
    throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** Five fields, minute to weekday; checked for shape here, fully by the scheduler at start. */
function cron(env: Env, name: string, fallback: string): string {
  const raw = text(env, name) ?? fallback;
  if (raw.split(/\s+/).length !== 5)
    throw new ConfigError(name, `expected a 5-field cron expression, got "${raw}"`);
  return raw;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function loadConfig(env: Env, cwd = process.cwd()): Config {
  const host = text(env, 'ARBITER_HOST') ?? '127.0.0.1';
  const dataDirRaw = text(env, 'ARBITER_DATA_DIR') ?? './.arbiter';
  const databaseUrl = text(env, 'ARBITER_DATABASE_URL');
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('ARBITER_DATABASE_URL', 'expected a postgres:// or postgresql:// URL');
  }
  const sessionJwksUrl = text(env, 'ARBITER_SESSION_JWKS_URL');
  if (sessionJwksUrl === null && !isLoopback(host)) {
    throw new ConfigError(
      'ARBITER_SESSION_JWKS_URL',
      `required when ARBITER_HOST (${host}) is not a loopback address: development sessions are refused off this machine`,
    );
  }
  const issuer = text(env, 'ARBITER_SESSION_ISSUER');
  if (sessionJwksUrl !== null && issuer === null) {
    throw new ConfigError('ARBITER_SESSION_ISSUER', 'required with ARBITER_SESSION_JWKS_URL');
  }
  const secretKey = text(env, 'ARBITER_SECRET_KEY');
  if (secretKey !== null && secretKey.length < 32) {
    throw new ConfigError('ARBITER_SECRET_KEY', 'must be at least 32 characters');
  }
  const logLevel = text(env, 'ARBITER_LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('ARBITER_LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  }
  return {
    port: integer(env, 'ARBITER_PORT', 8080, 0, 65535),
    host,
    dataDir: isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw),
    databaseUrl,
    sessionJwksUrl,
    sessionIssuer: issuer ?? DEV_SESSION_ISSUER,
    secretKey,
    platformOwnerEmails: (text(env, 'ARBITER_PLATFORM_OWNER_EMAILS') ?? '')
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter((e) => e !== ''),
    logLevel: logLevel as Config['logLevel'],
    bodyLimitBytes: integer(env, 'ARBITER_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    enforceLimits: flag(env, 'ARBITER_ENFORCE_LIMITS', true),
    rateLimitPublishablePerMinute: integer(
      env,
      'ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE',
      6_000,
      1,
      100_000_000,
    ),
    rateLimitSecretPerMinute: integer(
      env,
      'ARBITER_RATE_LIMIT_SECRET_PER_MINUTE',
      60_000,
      1,
      100_000_000,
    ),
    ingestWorker: flag(env, 'ARBITER_INGEST_WORKER', true),
    nightlyCron: cron(env, 'ARBITER_NIGHTLY_CRON', '15 0 * * *'),
    scheduler: flag(env, 'ARBITER_SCHEDULER', true),
    minEventsPerArm: integer(env, 'ARBITER_MIN_EVENTS_PER_ARM', 200, 1, 1_000_000_000),
    judgeBaseUrl: url(env, 'ARBITER_JUDGE_BASE_URL'),
    judgeApiKey: text(env, 'ARBITER_JUDGE_API_KEY'),
    judgeModel: text(env, 'ARBITER_JUDGE_MODEL') ?? 'gpt-4o-mini',
    judgeSamplePerRun: integer(env, 'ARBITER_JUDGE_SAMPLE_PER_RUN', 200, 1, 100_000),
  };
}

export function isDevelopmentSessions(config: Config): boolean {
  return config.sessionJwksUrl === null;
}

/**
 * The limits of what crosses the wire (docs/wire-format.md): every value the server refuses
 * beyond them, and every client checks before it queues an event, so an event a client sends
 * is an event the server takes. testdata/wire-limits.json carries the same numbers to the
 * Python and Java clients; a test regenerates it from this module and fails on a difference.
 */

/**
 * The one text rule of every route (free text and ids alike): no NUL and no unpaired UTF-16
 * surrogate. Both are valid in JSON and impossible in PostgreSQL text and jsonb (a NUL is an
 * error, a lone surrogate is silently turned into U+FFFD). A JSON Schema `pattern` for a
 * `u`-flag regular expression, where a surrogate range matches only a surrogate that is not
 * half of a pair.
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\ud800-\\udfff]*$';

export interface TextLimit {
  minLength: number;
  maxLength: number;
}

/** Lengths of an event's text fields, in UTF-16 code units (what JSON Schema's maxLength counts in JavaScript). */
export const EVENT_TEXT_LIMITS = {
  /** The idempotency key: a retry reuses it. */
  event_id: { minLength: 1, maxLength: 128 },
  /** An experiment's id or its unique name. */
  experiment_id: { minLength: 1, maxLength: 200 },
  user_id: { minLength: 1, maxLength: 256 },
  variant: { minLength: 1, maxLength: 64 },
  model: { minLength: 0, maxLength: 200 },
  error: { minLength: 0, maxLength: 4000 },
  /** Raw model text is stored; 200,000 units holds any real prompt or answer. */
  prompt: { minLength: 0, maxLength: 200_000 },
  response: { minLength: 0, maxLength: 200_000 },
  business_metric: { minLength: 1, maxLength: 128 },
} as const satisfies Record<string, TextLimit>;

export interface NumericDomain {
  minimum: number;
  maximum: number;
  integer: boolean;
}

/**
 * The domain of every numeric event field. Generous for real traffic and small enough that
 * every derived number stays finite: the aggregates are exact `numeric`, and the analysis
 * reads a user's sum back as a double, which with |value| <= 1e12 and any count of events
 * below 2^63 is at most ~1e31 (its square ~1e62), far below the double's 1.8e308.
 */
export const NUMERIC_DOMAINS = {
  /** One day: a call that took longer is a clock bug. */
  latency_ms: { minimum: 0, maximum: 86_400_000, integer: false },
  /** A billion tokens per call: far beyond any context window. */
  input_tokens: { minimum: 0, maximum: 1_000_000_000, integer: true },
  output_tokens: { minimum: 0, maximum: 1_000_000_000, integer: true },
  /** Parts of the two above: the input read from the provider's cache, the output spent reasoning. */
  cached_input_tokens: { minimum: 0, maximum: 1_000_000_000, integer: true },
  reasoning_tokens: { minimum: 0, maximum: 1_000_000_000, integer: true },
  /** A million US dollars per call. */
  cost_usd: { minimum: 0, maximum: 1_000_000, integer: false },
  /** A business outcome (revenue, count, score) in either direction, in any currency unit. */
  value: { minimum: -1e12, maximum: 1e12, integer: false },
} as const satisfies Record<string, NumericDomain>;

/**
 * The domain of an offline run's custom scores (POST /v1/offline-runs/{id}/results `scores`),
 * as an event's `value`: the paired statistics square differences of item means, and scores
 * near 1e154 would overflow them.
 */
export const OFFLINE_SCORE_DOMAIN = {
  minimum: -1e12,
  maximum: 1e12,
  integer: false,
} as const satisfies NumericDomain;

/**
 * The one limit of every free-form JSON field (event metadata, experiment variables, import
 * rows' metadata), besides the text rule on every key and string inside. Deep enough for any
 * real structure, shallow enough for every parser the clients use (Python's json, Jackson's
 * default 1,000, PostgreSQL's stack) and small enough that a config served to every client
 * stays small.
 */
export const FREE_FORM_JSON_MAX_DEPTH = 32;
/** Bytes of the value as compact JSON in UTF-8. */
export const FREE_FORM_JSON_MAX_BYTES = 64 * 1024;

/** Batch limits of POST /v1/events. */
export const MAX_EVENTS_PER_BATCH = 1000;
export const MAX_EVENTS_BODY_BYTES = 1024 * 1024;

const HOUR_MS = 3600 * 1000;
/** A clock ahead by more than this is a client bug, not an event from the future. */
export const MAX_FUTURE_SKEW_MS = 24 * HOUR_MS;
/**
 * Oldest event POST /v1/events takes: the clients' offline replay window (24 h,
 * OFFLINE_REPLAY_WINDOW_MS in testdata/client-defaults.json) plus one hour of slack for a
 * client's clock and the last retries of a replay.
 */
export const MAX_LIVE_AGE_MS = 25 * HOUR_MS;
/** Oldest event an import or a signed business event takes: a year of history (and a day). */
export const MAX_HISTORY_AGE_MS = 366 * 24 * HOUR_MS;

/** The three event types `POST /v1/events` accepts (SPEC §6). */
export type EventType = 'exposure' | 'model_call' | 'business_event';

/**
 * What `track` takes: the wire fields of an event (docs/wire-format.md) without the three the
 * client fills in at enqueue time (`event_id`, `type`, `timestamp`).
 */
export interface TrackPayload {
  /** Experiment id or unique name. */
  experiment_id: string;
  user_id: string;
  variant?: string;
  business_metric?: string;
  value?: number;
  latency_ms?: number;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  model?: string;
  error?: string | null;
  prompt?: string;
  response?: string;
  metadata?: Record<string, unknown>;
}

/** One event as sent on the wire. */
export interface ArbiterEvent extends TrackPayload {
  event_id: string;
  type: EventType;
  /** ISO 8601, taken when the event was enqueued; replays keep it. */
  timestamp: string;
}

/** Any logger with these methods works, `console` and pino included. */
export interface Logger {
  warn(message: string): void;
  error(message: string): void;
  debug?(message: string): void;
}

export interface PromptResult {
  /** The assigned variant key, or null (not enrolled, or no config yet). */
  variant: string | null;
  prompt: string;
  /** True when `prompt` is the caller's default. */
  fallback: boolean;
}

/** Counters of the event pipeline since construction. */
export interface ClientStats {
  /** Events waiting in memory. */
  queued: number;
  /** Events acknowledged by the server. */
  sent: number;
  /** Events dropped: queue full, refused by the server, retries exhausted without a store, or closed. */
  dropped: number;
  /** Events written to the offline store. */
  spilled: number;
  /** Spilled events later acknowledged by the server. */
  replayed: number;
  /** Spilled events discarded as older than the replay window. */
  expired: number;
}

export interface ArbiterOptions {
  /** Publishable or secret key. Node falls back to `ARBITER_API_KEY`. */
  apiKey?: string;
  /** API address. Node falls back to `ARBITER_BASE_URL`, then https://api.arbiter.dev. */
  baseUrl?: string;
  /** Experiment names (or ids) that `ready()` waits for. */
  experiments?: readonly string[];
  /** The `fetch` to use; defaults to the global one. */
  fetch?: typeof fetch;
  /** Where warnings go; defaults to `console`. */
  logger?: Logger;
  /** Node: file that keeps events the API could not take, for replay within 24 h. */
  offlineStorePath?: string;
  /** Browser: `false` turns the IndexedDB offline store off (on by default where IndexedDB exists). */
  offlineStore?: boolean;
  /** Send one `exposure` per user and experiment from `assign`/`getPrompt`/`getVariables`. Default true. */
  trackExposures?: boolean;
  /**
   * Keep the prompt and response text of wrapped model calls on their `model_call` events, so
   * judge metrics can grade them. Default true; false sends measurements only.
   */
  recordModelText?: boolean;
  /** Default 60 000. */
  pollIntervalMs?: number;
  /** Default 5 000. */
  flushIntervalMs?: number;
  /** Default 100, at most 1 000. */
  batchSize?: number;
  /** Default 10 000. */
  queueCapacity?: number;
  /** Attempts per request, first included. Default 3. */
  maxAttempts?: number;
  /** Default 500. */
  retryBaseDelayMs?: number;
  /** Default 8 000. */
  retryMaxDelayMs?: number;
  /** Default 30 000. */
  retryAfterCapMs?: number;
  /** Default 10 000. */
  requestTimeoutMs?: number;
}

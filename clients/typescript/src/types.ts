/** The three event types `POST /v1/events` accepts (docs/wire-format.md#post-v1events-publishable-or-secret-key). */
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
  /** Of `input_tokens`, those read from the provider's prompt cache. */
  cached_input_tokens?: number;
  /** Of `output_tokens`, those the model spent reasoning. */
  reasoning_tokens?: number;
  /** The call's cost; without it the server prices the call from its tokens and model. */
  cost_usd?: number;
  model?: string;
  error?: string | null;
  prompt?: string;
  response?: string;
  metadata?: Record<string, unknown>;
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

/**
 * What the framework integrations (`@arbiter/client/ai-sdk`, `@arbiter/client/langchain`) take
 * as `client`: an `Arbiter` of either build. They check at construction that it is one.
 */
export interface ArbiterInstance {
  getPrompt(
    experiment: string,
    user: string,
    defaultPrompt: string,
    attributes?: Attributes,
  ): PromptResult;
  withUser<R>(user: string, fn: () => R, attributes?: Attributes): R;
}

/**
 * What an experiment's targeting reads about a user (plan, locale, app version…): any JSON
 * object. It stays in the process: assign evaluates it locally and no event carries it, unless
 * the client's `exposureAttributes` option is on (then exposures carry it as `metadata.attributes`).
 */
export type Attributes = Record<string, unknown>;

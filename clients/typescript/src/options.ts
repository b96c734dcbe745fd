import type { Logger } from './types.ts';

/** The options both builds take; each entry point exports its own type that adds the rest. */
interface SharedOptions {
  /** Experiment names (or ids) that `ready()` waits for. */
  experiments?: readonly string[];
  /** The `fetch` to use; defaults to the global one. */
  fetch?: typeof fetch;
  /** Where warnings go; defaults to `console`. */
  logger?: Logger;
  /** Send one `exposure` per user, experiment and UTC day from `assign`/`getPrompt`/`getVariables`. Default true. */
  trackExposures?: boolean;
  /**
   * Count, per experiment with targeting and UTC day, the distinct users whose check reached the
   * targeting (past holdouts and layer) and whether it matched, and send the counts (no user
   * ids) with the event flushes, so the results page can show the share targeting excluded.
   * Default: the value of `trackExposures` (a caller who turns exposure tracking off keeps no
   * per-user memory at all unless it asks for tallies); set it to override. Only with the secret
   * key (`svc_sk_`), the one the route takes: with another key tallies are off, and `true` logs
   * one warning at construction.
   */
  trackTargetingTallies?: boolean;
  /**
   * Let each exposure carry the attributes its call passed, as `metadata.attributes`. Default
   * false: attributes stay in the process. Attributes that are not JSON or break the metadata
   * limit (32 levels, 64 KiB) are left out and the exposure is sent without them.
   */
  exposureAttributes?: boolean;
  /**
   * Users per experiment remembered as exposed today (8 bytes each); past it they are all
   * forgotten and sent again once. Default 1 048 576, at least 1.
   */
  exposureDedupCapacity?: number;
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

/** Options of the Node build. */
export interface NodeArbiterOptions extends SharedOptions {
  /** Publishable or secret key; falls back to `ARBITER_API_KEY`. */
  apiKey?: string;
  /** API address; falls back to `ARBITER_BASE_URL`, then https://api.arbiter.dev. */
  baseUrl?: string;
  /** File that keeps events the API could not take, for replay within 24 h. None by default. */
  offlineStorePath?: string;
}

/** Options of the browser build (also workers, Deno and edge runtimes). */
export interface BrowserArbiterOptions extends SharedOptions {
  /** Publishable or secret key. Required: there is no environment to take it from. */
  apiKey: string;
  /** API address; defaults to https://api.arbiter.dev. */
  baseUrl?: string;
  /** `false` turns the IndexedDB offline store off (on by default where IndexedDB exists). */
  offlineStore?: boolean;
}

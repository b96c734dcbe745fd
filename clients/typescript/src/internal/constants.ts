/**
 * Every default of the client, named once. The Python and Java clients carry the same values
 * (STYLE 14); the README lists them. Durations are in milliseconds.
 */

/** Production API. Overridden by the `baseUrl` option or `ARBITER_BASE_URL`. */
export const DEFAULT_BASE_URL = 'https://api.arbiter.dev';

/** docs/decisions/clients.md#shared-behaviour-and-defaults: clients poll `GET /v1/config` every 60 s. */
export const CONFIG_POLL_INTERVAL_MS = 60_000;

/** Events per `POST /v1/events` request. */
export const EVENT_BATCH_SIZE = 100;
/** The server refuses larger batches (docs/wire-format.md). */
export const MAX_EVENT_BATCH_SIZE = 1_000;
/** The server refuses larger bodies; a batch over it is split. */
export const MAX_EVENT_BATCH_BYTES = 1_048_576;

/** Events held in memory awaiting a flush; past this, new events are counted and dropped. */
export const EVENT_QUEUE_CAPACITY = 10_000;
/** A partial batch is sent after this long. */
export const FLUSH_INTERVAL_MS = 5_000;
/** After failed flushes the interval doubles up to this. */
export const MAX_FLUSH_INTERVAL_MS = 60_000;

/** Attempts per request, the first included (STYLE 12: two or three). */
export const MAX_ATTEMPTS = 3;
/** First retry delay; doubles per attempt. */
export const RETRY_BASE_DELAY_MS = 500;
/** Cap of the exponential retry delay. */
export const RETRY_MAX_DELAY_MS = 8_000;
/** A server's `Retry-After` is honoured up to this. */
export const RETRY_AFTER_CAP_MS = 30_000;
/** Share of a retry delay removed at random, so that clients do not retry in lockstep. */
export const RETRY_JITTER = 0.25;
/** One HTTP request, connection included. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** docs/decisions/clients.md#shared-behaviour-and-defaults: spilled events are replayed within 24 h, with their original timestamps. */
export const OFFLINE_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1_000;
/** Events kept in the offline store; the oldest go first past this. */
export const OFFLINE_STORE_CAPACITY = 100_000;
/** IndexedDB database holding spilled events in the browser. */
export const INDEXEDDB_NAME = 'arbiter-offline-events';

/**
 * Fingerprints of exposed users remembered per experiment and UTC day (8 bytes each, about
 * 9 MiB at most with the table's slack), so that `assign` sends one exposure per user and day,
 * not per call; past it the table is cleared and starts again.
 */
export const EXPOSURE_DEDUP_CAPACITY = 1_048_576;
/** The API stores user ids of 1 to 256 characters; others bucket but send no events. */
export const MAX_USER_ID_LENGTH = 256;
/** A model-call error message is cut to this many characters. */
export const MAX_ERROR_LENGTH = 500;
/** Prompt and response text kept per model call: the server's field limit. */
export const MAX_MODEL_TEXT_LENGTH = 200_000;
/** `fetch` with `keepalive` (page unload) refuses bodies over 64 KiB. */
export const KEEPALIVE_MAX_BYTES = 60_000;

/** `evaluate`: tasks running at once unless `concurrency` says otherwise. */
export const EVALUATION_CONCURRENCY = 4;
/** `evaluate`: how long a run found still scoring (a retried `complete`) is waited for. */
export const EVALUATION_SCORING_WAIT_MS = 300_000;

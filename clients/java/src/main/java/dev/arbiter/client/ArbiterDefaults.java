package dev.arbiter.client;

/**
 * Every default of the client, named once. The TypeScript and Python clients carry the same
 * names and values ({@code testdata/client-defaults.json}, checked by the tests); the README
 * lists them. Durations are in milliseconds.
 */
public final class ArbiterDefaults {
  private ArbiterDefaults() {}

  /** Production API. Overridden by {@code baseUrl(..)} or {@code ARBITER_BASE_URL}. */
  public static final String DEFAULT_BASE_URL = "https://api.arbiter.dev";

  /** docs/decisions/clients.md#shared-behaviour-and-defaults: clients poll {@code GET /v1/config} every 60 s. */
  public static final long CONFIG_POLL_INTERVAL_MS = 60_000;

  /** Events per {@code POST /v1/events} request. */
  public static final int EVENT_BATCH_SIZE = 100;
  /** The server refuses larger batches. */
  public static final int MAX_EVENT_BATCH_SIZE = 1_000;
  /** The server refuses larger bodies; a batch over it is split. */
  public static final int MAX_EVENT_BATCH_BYTES = 1_048_576;

  /** Events held in memory awaiting a flush; past this, new events are counted and dropped. */
  public static final int EVENT_QUEUE_CAPACITY = 10_000;
  /** A partial batch is sent after this long. */
  public static final long FLUSH_INTERVAL_MS = 5_000;
  /** After failed flushes the interval doubles up to this. */
  public static final long MAX_FLUSH_INTERVAL_MS = 60_000;

  /** Attempts per request, the first included. */
  public static final int MAX_ATTEMPTS = 3;
  /** First retry delay; doubles per attempt. */
  public static final long RETRY_BASE_DELAY_MS = 500;
  /** Cap of the exponential retry delay. */
  public static final long RETRY_MAX_DELAY_MS = 8_000;
  /** A server's {@code Retry-After} is honoured up to this. */
  public static final long RETRY_AFTER_CAP_MS = 30_000;
  /** Share of a retry delay removed at random, so that clients do not retry in lockstep. */
  public static final double RETRY_JITTER = 0.25;
  /** One HTTP request, connection included. */
  public static final long REQUEST_TIMEOUT_MS = 10_000;

  /** docs/decisions/clients.md#shared-behaviour-and-defaults: spilled events are replayed within 24 h, with their original timestamps. */
  public static final long OFFLINE_REPLAY_WINDOW_MS = 86_400_000;
  /** Events kept in the offline store; the oldest go first past this. */
  public static final int OFFLINE_STORE_CAPACITY = 100_000;

  /**
   * Users (fingerprints of user and variant) remembered per experiment and UTC day so that
   * {@code assign} sends one exposure per user a day; the option {@code exposureDedupCapacity}.
   */
  public static final int EXPOSURE_DEDUP_CAPACITY = 1_048_576;
  /** The API stores user ids of 1 to 256 characters; others bucket but send no events. */
  public static final int MAX_USER_ID_LENGTH = 256;
  /** A model-call error message is cut to this many characters. */
  public static final int MAX_ERROR_LENGTH = 500;
  /** Prompt and response text kept per model call: the server's field limit. */
  public static final int MAX_MODEL_TEXT_LENGTH = 200_000;

  /** The server's numeric domains (docs/wire-format.md); an event outside them is not queued.
   * {@code latency_ms} from 0 to one day: a longer call is a clock bug. */
  public static final long MAX_LATENCY_MS = 86_400_000;
  /** {@code input_tokens} and {@code output_tokens}: integers from 0 to a billion. */
  public static final long MAX_TOKENS = 1_000_000_000;
  /** {@code cost_usd} from 0 to a million US dollars. */
  public static final long MAX_COST_USD = 1_000_000;
  /** A business event's {@code value} lies within plus or minus this (1e12). */
  public static final long MAX_ABS_BUSINESS_VALUE = 1_000_000_000_000L;
  /** Free-form JSON ({@code metadata}): at most this many levels of nesting... */
  public static final int METADATA_MAX_DEPTH = 32;
  /** ...and at most this many bytes as compact UTF-8 JSON (64 KiB). */
  public static final int METADATA_MAX_BYTES = 65_536;

  /** Tasks an offline evaluation runs at once, unless {@code concurrency(..)} says otherwise. */
  public static final int EVALUATION_CONCURRENCY = 4;
  /**
   * How long {@code evaluate} waits for a run the server answers {@code scoring} (a judge scorer
   * scores in the background, and a large run finishes after the answer) before it gives up.
   */
  public static final long EVALUATION_SCORING_WAIT_MS = 300_000;

  /** Java only: how long {@code close()} waits for the queue to be delivered or spilled. */
  public static final long CLOSE_TIMEOUT_MS = 10_000;
}

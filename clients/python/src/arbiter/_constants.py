"""Every default of the client, named once.

The TypeScript and Java clients carry the same names and values (testdata/client-defaults.json,
checked by the tests); the README lists them. Durations are in milliseconds.
"""

#: Production API. Overridden by the ``base_url`` option or ``ARBITER_BASE_URL``.
DEFAULT_BASE_URL = "https://api.arbiter.dev"

#: SPEC §8: clients poll ``GET /v1/config`` every 60 s.
CONFIG_POLL_INTERVAL_MS = 60_000

#: Events per ``POST /v1/events`` request.
EVENT_BATCH_SIZE = 100
#: The server refuses larger batches (docs/wire-format.md).
MAX_EVENT_BATCH_SIZE = 1_000
#: The server refuses larger bodies; a batch over it is split.
MAX_EVENT_BATCH_BYTES = 1_048_576

#: Events held in memory awaiting a flush; past this, new events are counted and dropped.
EVENT_QUEUE_CAPACITY = 10_000
#: A partial batch is sent after this long.
FLUSH_INTERVAL_MS = 5_000
#: After failed flushes the interval doubles up to this.
MAX_FLUSH_INTERVAL_MS = 60_000

#: Attempts per request, the first included.
MAX_ATTEMPTS = 3
#: First retry delay; doubles per attempt.
RETRY_BASE_DELAY_MS = 500
#: Cap of the exponential retry delay.
RETRY_MAX_DELAY_MS = 8_000
#: A server's ``Retry-After`` is honoured up to this.
RETRY_AFTER_CAP_MS = 30_000
#: Share of a retry delay removed at random, so that clients do not retry in lockstep.
RETRY_JITTER = 0.25
#: One HTTP request, connection included.
REQUEST_TIMEOUT_MS = 10_000

#: SPEC §8: spilled events are replayed within 24 h, with their original timestamps.
OFFLINE_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1_000
#: Events kept in the offline store; the oldest go first past this.
OFFLINE_STORE_CAPACITY = 100_000

#: Users remembered per experiment so that ``assign`` sends one exposure per user, not per call.
EXPOSURE_CACHE_SIZE = 100_000
#: The API stores user ids of 1 to 256 characters (UTF-16 units); others bucket but send no events.
MAX_USER_ID_LENGTH = 256
#: A model-call error message is cut to this many characters.
MAX_ERROR_LENGTH = 500
#: Prompt and response text kept per model call: the server's field limit.
MAX_MODEL_TEXT_LENGTH = 200_000

#: Python only: how long the ``atexit`` hook may spend delivering the queue before it spills the
#: rest to the offline store (or drops it with a log line). Sentry's Python SDK uses the same 2 s.
EXIT_FLUSH_DEADLINE_MS = 2_000

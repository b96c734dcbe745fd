"""Every default of the client, named once.

The TypeScript and Java clients carry the same names and values (testdata/client-defaults.json,
checked by the tests); the README lists them. Durations are in milliseconds, as in that shared
file; the client's options take seconds, converted once in ``Arbiter.__init__``'s defaults.
"""

#: Production API. Overridden by the ``base_url`` option or ``ARBITER_BASE_URL``.
DEFAULT_BASE_URL = "https://api.arbiter.dev"

#: docs/decisions/clients.md#shared-behaviour-and-defaults: clients poll ``GET /v1/config`` every 60 s.
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

#: Spilled events are replayed within 24 h, with their original timestamps
#: (docs/decisions/clients.md#shared-behaviour-and-defaults).
OFFLINE_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1_000
#: Events kept in the offline store; the oldest go first past this.
OFFLINE_STORE_CAPACITY = 100_000

#: Fingerprints of (user, variant) remembered per experiment and UTC day, so that ``assign`` sends
#: one exposure per user a day, not one per call; past it the experiment's table starts again.
EXPOSURE_DEDUP_CAPACITY = 1_048_576
#: The API stores user ids of 1 to 256 characters (UTF-16 units); others bucket but send no events.
MAX_USER_ID_LENGTH = 256
#: A model-call error message is cut to this many characters.
MAX_ERROR_LENGTH = 500
#: Prompt and response text kept per model call: the server's field limit.
MAX_MODEL_TEXT_LENGTH = 200_000

#: The server's numeric domains (docs/wire-format.md); an event outside them is not queued.
#: ``latency_ms`` from 0 to one day: a longer call is a clock bug.
MAX_LATENCY_MS = 86_400_000
#: ``input_tokens`` and ``output_tokens``: integers from 0 to a billion.
MAX_TOKENS = 1_000_000_000
#: ``cost_usd`` from 0 to a million US dollars.
MAX_COST_USD = 1_000_000
#: A business event's ``value`` lies within plus or minus this (1e12).
MAX_ABS_BUSINESS_VALUE = 1_000_000_000_000
#: Free-form JSON (``metadata``): at most this many levels of nesting...
METADATA_MAX_DEPTH = 32
#: ...and at most this many bytes as compact UTF-8 JSON (64 KiB).
METADATA_MAX_BYTES = 65_536

#: Python only: how long the ``atexit`` hook may spend delivering the queue before it spills the
#: rest to the offline store (or drops it with a log line). Sentry's Python SDK uses the same 2 s.
EXIT_FLUSH_DEADLINE_MS = 2_000

#: ``evaluate``: tasks running at once unless ``concurrency`` says otherwise (the same default as
#: the TypeScript and Java clients, docs/decisions/clients.md#offline-evaluation-in-the-clients-evaluate).
EVALUATION_CONCURRENCY = 4
#: Python only: the progress line on a terminal is redrawn at most this often.
EVALUATION_PROGRESS_REDRAW_MS = 100
#: Python only: a run still ``scoring`` after ``complete`` answered is read again this often.
EVALUATION_SCORING_POLL_MS = 1_000
#: ``evaluate``: how long a run the server answers ``scoring`` (a judge scorer scores in the
#: background, a large run finishes after the answer) is waited for before ``evaluate`` gives up.
EVALUATION_SCORING_WAIT_MS = 300_000

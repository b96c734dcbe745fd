/**
 * The closed catalogue of problems a client can see. Each has a stable `type` URI
 * (`/problems/<slug>`, documented at that path on the server), a status and a title.
 */
export const PROBLEMS = {
  'validation-error': {
    status: 400,
    title: 'The request is not valid',
    about:
      'A field of the body, query or path is missing or malformed. `errors` lists each one with a JSON pointer.',
  },
  'bad-request': {
    status: 400,
    title: 'The request cannot be read',
    about:
      'The request line, a header or the URL is malformed (for example a broken percent-encoding or an invalid Content-Length), so it was not routed.',
  },
  'malformed-json': {
    status: 400,
    title: 'The body is not valid JSON',
    about: 'The request body could not be parsed as JSON.',
  },
  'experiment-name-taken': {
    status: 400,
    title: 'Experiment name already used',
    about: 'Experiment names are unique within an org; choose another name.',
  },
  'saved-group-key-taken': {
    status: 400,
    title: 'Saved group key already used',
    about: 'Saved group keys are unique within an org; choose another key.',
  },
  'layer-name-taken': {
    status: 400,
    title: 'Layer name already used',
    about: 'Layer names are unique within an org; choose another name.',
  },
  'holdout-name-taken': {
    status: 400,
    title: 'Holdout name already used',
    about: 'Holdout names are unique within an org; choose another name.',
  },
  'layer-full': {
    status: 400,
    title: 'The layer has too few never-used buckets',
    about:
      'An experiment joining a layer, or growing its `layer_weight`, takes buckets of the layer no experiment ever owned; a bucket once owned is never handed to another experiment. `needed_buckets` and `free_buckets` say how many were needed and how many remain.',
  },
  'prompt-name-taken': {
    status: 400,
    title: 'Prompt name already used',
    about: 'Prompt names are unique within an org; choose another name.',
  },
  'dataset-name-taken': {
    status: 400,
    title: 'Dataset name already used',
    about: 'Dataset names are unique within an org; choose another name.',
  },
  'config-too-large': {
    status: 413,
    title: 'The experiment config is too large',
    about:
      'An experiment config may be at most `ARBITER_MAX_CONFIG_BYTES` of JSON (1 MiB unless set), whatever the body limit; for a PUT, the config after the change counts. Nothing was stored. `size_bytes` and `limit_bytes` say by how much.',
  },
  'org-config-too-large': {
    status: 413,
    title: "The org's experiment configs would be too large",
    about:
      "The current configs of an org's experiments, which `/v1/config` serves to every client, may total at most `ARBITER_MAX_ORG_CONFIG_BYTES` of JSON (16 MiB unless set). Nothing was stored. `size_bytes` and `limit_bytes` say by how much.",
  },
  'frozen-field': {
    status: 400,
    title: 'A frozen field cannot change',
    about:
      '`salt` and `bucket_count` are set at creation and frozen for the life of the experiment (of a layer or a holdout too), and so is an experiment’s `layer`: moving it would let the layer’s users overlap.',
  },
  'allocation-not-sticky': {
    status: 400,
    title: 'The allocation cannot be met without moving users',
    about:
      'A bucket once given to a variant never moves to another. Growing a slice or adding a variant takes never-used buckets; when too few remain, the change is refused. The same holds for the layer an experiment is in (it is frozen) and for a holdout’s percent (it may grow, not shrink).',
  },
  'plan-required': {
    status: 400,
    title: 'Your plan does not include this',
    about:
      "Judge evaluations (judge metrics and offline runs' judge scorers, scored by a judge model) need the pro plan or higher. `plan_required` names the plan.",
  },
  'missing-credential': {
    status: 401,
    title: 'Credential missing',
    about:
      'Send a session token as `Authorization: Bearer <jwt>` (dashboard) or a key in `X-API-Key` (ingest).',
  },
  'invalid-credential': {
    status: 401,
    title: 'Credential not valid',
    about:
      'The token or key was not accepted: malformed, expired, from another issuer, unknown or rotated away.',
  },
  'insufficient-role': {
    status: 403,
    title: 'Your role does not allow this',
    about: 'The operation needs a higher role in the org (admin or owner).',
  },
  'no-active-org': {
    status: 403,
    title: 'No active organization',
    about:
      'The session token carries no `org_id`; select an organization in the identity provider.',
  },
  'membership-revoked': {
    status: 403,
    title: 'No longer a member',
    about:
      'The identity provider removed you from this organization, or deleted the organization, after your session token was issued. Pick another organization or ask an admin to invite you again.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    about: 'No such route.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    about:
      'The path exists but does not answer this method. The `Allow` header lists the methods it answers.',
  },
  'invalid-transition': {
    status: 409,
    title: 'Transition not allowed',
    about:
      'An experiment moves draft → running (start), running → stopped (stop), draft or stopped → archived (archive) and archived → the status it came from (unarchive); a stopped or archived experiment is not changed by a PUT. `current_status` is where the experiment is and `allowed_transitions` what it may do from there.',
  },
  'rollout-conflict': {
    status: 409,
    title: 'The ramp cannot make that move',
    about:
      'A ramp pauses while running, resumes while paused and jumps to one of its steps while running or paused; once the experiment stopped its ramp has ended. A PUT may not change the coverage or the rollout of an experiment whose ramp has started: pause, resume or jump instead. `state` is where the ramp is.',
  },
  'rollout-not-found': {
    status: 404,
    title: 'No ramp',
    about:
      'The experiment has no ramp yet: it has no rollout, or it has one and has not started (starting sets the first step).',
  },
  'billing-not-configured': {
    status: 409,
    title: 'Billing is not configured',
    about:
      'This server has no billing provider key, or no price for the plan asked for; the operator sets `ARBITER_STRIPE_SECRET_KEY` and `ARBITER_STRIPE_PRICE_<PLAN>`.',
  },
  'plan-already-active': {
    status: 409,
    title: 'That plan is already active',
    about:
      'The org is already on the plan a checkout was asked for; `plan_source` says whether billing or a platform override set it.',
  },
  'no-billing-account': {
    status: 409,
    title: 'No billing account',
    about: 'The org has never started a checkout, so there is no billing portal to open.',
  },
  'billing-provider-failed': {
    status: 502,
    title: 'The billing provider failed',
    about:
      'The billing provider refused the request or did not answer; nothing was changed here. Retry later.',
  },
  'org-not-found': {
    status: 404,
    title: 'Org not found',
    about:
      "No organization has this internal id (the platform owner's org view also takes the identity provider's org id).",
  },
  'experiment-not-found': {
    status: 404,
    title: 'Experiment not found',
    about:
      'No experiment with this id or name exists in your org. Dashboard paths take either: names are never shaped like a UUID.',
  },
  'webhook-endpoint-not-found': {
    status: 404,
    title: 'Webhook endpoint not found',
    about: 'No webhook endpoint with this id exists in your org.',
  },
  'webhook-delivery-not-found': {
    status: 404,
    title: 'Webhook delivery not found',
    about: 'No delivery with this id exists for this webhook endpoint of your org.',
  },
  'webhook-endpoint-limit': {
    status: 409,
    title: 'Too many webhook endpoints',
    about: 'An org has at most 20 webhook endpoints; delete one before adding another.',
  },
  'webhook-url-refused': {
    status: 400,
    title: 'Webhook URL refused',
    about:
      'A webhook endpoint URL uses https (http only to a loopback host, for a local receiver), carries no credentials or fragment, and names no private, link-local or metadata address.',
  },
  'model-price-not-found': {
    status: 404,
    title: 'Model price not found',
    about:
      'Your org has no price row with this pattern and effective day; GET /v1/model-prices lists its rows.',
  },
  'layer-not-found': {
    status: 404,
    title: 'Layer not found',
    about:
      'No layer with this id or name exists in your org. Layer paths take either: names are never shaped like a UUID.',
  },
  'holdout-not-found': {
    status: 404,
    title: 'Holdout not found',
    about:
      'No holdout with this id or name exists in your org. Holdout paths take either: names are never shaped like a UUID.',
  },
  'prompt-not-found': {
    status: 404,
    title: 'Prompt not found',
    about: 'No prompt with this name exists in your org.',
  },
  'saved-group-not-found': {
    status: 404,
    title: 'Saved group not found',
    about:
      'No saved group with this id or key exists in your org. Saved group paths take either: keys are never shaped like a UUID.',
  },
  'dataset-not-found': {
    status: 404,
    title: 'Dataset not found',
    about:
      'No dataset with this id or name exists in your org. Dataset paths take either: names are never shaped like a UUID.',
  },
  'dataset-item-not-found': {
    status: 404,
    title: 'Dataset item not found',
    about: "The dataset's latest version holds no item with this id.",
  },
  'dataset-version-not-found': {
    status: 404,
    title: 'Dataset version not found',
    about:
      'The dataset has no version of this number: versions run from 1 (its creation) to its latest, `version` in the dataset.',
  },
  'offline-run-not-found': {
    status: 404,
    title: 'Offline run not found',
    about: 'No offline evaluation run with this id exists in your org.',
  },
  'offline-run-not-open': {
    status: 409,
    title: 'The offline run takes no more results',
    about:
      'Results are taken while a run is `running`. Once `complete` is called the run is scored (`scoring`) and then `complete` or `failed`; later results are refused and change nothing. Start a new run to evaluate again.',
  },
  'metric-not-found': {
    status: 404,
    title: 'Metric not found',
    about:
      "The experiment has no metric of this name. `metrics` lists the experiment's metric names.",
  },
  'breakdown-not-computed': {
    status: 404,
    title: 'No breakdown in this run',
    about:
      'The run served computed no slices by this dimension. Nightly runs compute every dimension the experiment declares; a manual run computes one when asked (`POST /v1/experiments/{id}/analyze?dimension=<name>`). Runs whose own SRM check halted, and runs stored before the dimension was declared, have none.',
  },
  'results-collecting': {
    status: 404,
    title: 'Collecting',
    about:
      "No computed results yet: they appear after a pipeline run (nightly, or `arbiter pipeline run --day D`) once every arm has enough evaluated events (exposures since the day the experiment was created; 200 unless `ARBITER_MIN_EVENTS_PER_ARM` says otherwise). `events_per_arm` gives the counts so far, `min_events_per_arm` the threshold, `setting` the variable that changes it, and `primary_metrics` per primary metric and treatment the users per arm a decision needs (`users_needed_per_arm`, for the metric's `mde`) and `days_to_decision` at the last 7 days' arrivals. Live counts are on the live route meanwhile.",
  },
  'key-not-revealable': {
    status: 404,
    title: 'No revealable key',
    about:
      'No key of this scope is active, or it was made before raw-key storage was configured: rotate it to get a revealable one.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Body too large',
    about: 'The request body exceeds the stated size limit.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    about: 'The request was not received completely in time. Retry it.',
  },
  'uri-too-long': {
    status: 414,
    title: 'URI too long',
    about:
      'The request target (at most 16 KiB), or one of its path segments (at most 4,096 characters as sent), is longer than the server reads.',
  },
  'header-fields-too-large': {
    status: 431,
    title: 'Request headers too large',
    about: 'The request headers together exceed the size the server reads (16 KiB).',
  },
  'unsupported-content-encoding': {
    status: 415,
    title: 'Unsupported content encoding',
    about:
      'Request bodies are read as sent: send them without `Content-Encoding` (or `identity`). Compressed bodies (gzip, deflate, br) are not accepted, except gzip on `POST /v1/otlp/v1/traces` (OTLP/HTTP).',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported content type',
    about: 'Send the body with a content type this route accepts (usually `application/json`).',
  },
  'secret-key-not-configured': {
    status: 409,
    title: 'Encryption key not configured',
    about:
      'This deployment has no `ARBITER_SECRET_KEY`, so secrets cannot be stored for later use.',
  },
  'embedded-database-only': {
    status: 409,
    title: 'Only the embedded database is backed up here',
    about:
      'This server runs on a PostgreSQL server, whose backups are made with its own tools (`pg_dump`, base backups with WAL archiving), as the operations guide of the repository says; `arbiter backup` copies only the embedded PGlite database.',
  },
  'identity-provider-not-configured': {
    status: 409,
    title: 'Identity provider not configured',
    about:
      'This deployment has no `ARBITER_CLERK_SECRET_KEY`, so nothing can be pushed to the identity provider.',
  },
  'identity-provider-failed': {
    status: 502,
    title: 'The identity provider refused or failed',
    about:
      "A call to the identity provider's Backend API failed. What was done before the failure stands; the operation is idempotent, so run it again.",
  },
  'import-format': {
    status: 400,
    title: 'The import payload cannot be read',
    about:
      'The payload of an events import or a dataset upload is unusable as a whole (no CSV header or an unknown column, JSON of the wrong shape, too many rows). Rows are otherwise checked one by one.',
  },
  'otlp-payload-invalid': {
    status: 400,
    title: 'The OTLP payload cannot be read',
    about:
      'The body of `POST /v1/otlp/v1/traces` is not an OTLP ExportTraceServiceRequest in the encoding its `Content-Type` names (`application/x-protobuf` or OTLP JSON `application/json`), its gzip is broken, an attribute value nests more than 32 deep, or a time is beyond a fixed64 of nanoseconds. Nothing was stored.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    about: 'This key sent more requests than its per-minute limit. Wait for `Retry-After` seconds.',
  },
  'allowance-exceeded': {
    status: 429,
    title: 'Monthly event allowance used up',
    about:
      "The org's plan does not bill overage and this UTC month's event allowance is used. Counters reset at 00:00 UTC on the 1st; `Retry-After` says when.",
  },
  'import-concurrency-limit': {
    status: 429,
    title: 'Too many imports at once',
    about:
      'An org runs at most a few bulk imports at once (`ARBITER_IMPORT_CONCURRENCY_PER_ORG`, 2 unless set), and as many dataset uploads, counted apart; nothing of this one was stored. Send it again after `Retry-After` seconds, or once an earlier one has answered.',
  },
  'otlp-concurrency-limit': {
    status: 429,
    title: 'Too many OTLP exports at once',
    about:
      'An org has at most 4 OTLP trace exports decoded at once in each server process; nothing of this one was stored. OTLP exporters retry after `Retry-After` seconds.',
  },
  'test-event-limit': {
    status: 429,
    title: 'Too many test events',
    about: 'At most 5 test events per experiment per hour.',
  },
  'dimension-unknown': {
    status: 400,
    title: 'Unknown dimension',
    about:
      'A breakdown is offered for the dimensions the experiment declares (`dimensions` in its config: `model` or `metadata.<key>`). `dimensions` lists them; `dimension` is the one asked for.',
  },
  'manual-run-limit': {
    status: 429,
    title: 'Too many manual runs',
    about:
      'Each manual run is stored for good, so an experiment takes a limited number per hour (`ARBITER_MANUAL_RUNS_PER_HOUR`, 20 unless set). Wait for `Retry-After` seconds; the live view needs no run.',
  },
  'fold-behind': {
    status: 503,
    title: 'Recent events are not in the aggregates yet',
    about:
      'An analysis is computed only once every event accepted before it is folded into the aggregates it reads, so it never publishes a result that misses accepted events. The fold did not catch up in time (`ARBITER_RUN_FOLD_WAIT_MS`); nothing was stored. Retry after `Retry-After` seconds.',
  },
  'contact-limit': {
    status: 429,
    title: 'Too many messages',
    about:
      'The contact form takes a few messages per hour from one address (`ARBITER_CONTACT_PER_IP_PER_HOUR`, 5 unless set). Wait for `Retry-After` seconds.',
  },
  'invalid-signature': {
    status: 401,
    title: 'Signature not valid',
    about: 'The webhook signature is missing, malformed, too old or does not match the body.',
  },
  'database-timeout': {
    status: 503,
    title: 'The database did not answer in time',
    about:
      'A database call took longer than `ARBITER_DATABASE_TIMEOUT_MS` (60 s unless set), so the request was given up; what it had not committed is rolled back. Retry after `Retry-After` seconds.',
  },
  'event-log-unavailable': {
    status: 503,
    title: 'The event log cannot take events right now',
    about:
      'The server keeps accepted events on a replicated log (Kafka, with `ARBITER_KAFKA_BROKERS`) and answers 202 only once the log has them; the log did not acknowledge this batch. Nothing of it was stored or metered. Retry after `Retry-After` seconds with the same event ids.',
  },
  'shard-unavailable': {
    status: 503,
    title: 'A database that holds event data cannot be reached right now',
    about:
      "The server keeps event data on several PostgreSQL servers (`ARBITER_SHARD_URLS`), each user's on one of them, and one of them did not answer. For a batch of events: the batch's events of users on the other servers are stored and metered, the rest are not; retry after `Retry-After` seconds with the same event ids: what was stored comes back as duplicates, metered once, and the rest is stored. For a read that needs every server (an export, a live view, a listing): nothing of the answer is sent rather than part of the users'; retry after `Retry-After` seconds.",
  },
  'model-text-unavailable': {
    status: 503,
    title: 'The object store cannot take model text right now',
    about:
      "The server keeps model calls' prompt and response in an object store (`ARBITER_BLOB_URL`) and answers 202 only once the store has them; the store did not take this batch's text. Nothing of the batch was stored or metered. Retry after `Retry-After` seconds with the same event ids.",
  },
  'shutting-down': {
    status: 503,
    title: 'The server is shutting down',
    about:
      'The process that took the request got a stop signal (a restart or a deploy) and is closing, so it did nothing of the request. Retry after `Retry-After` seconds with the same event ids: the load balancer sends it to another process, or to this one restarted.',
  },
  'insufficient-storage': {
    status: 507,
    title: 'The database is nearly out of disk space',
    about:
      "The embedded database's file system has less free space than `ARBITER_MIN_FREE_DISK_BYTES` keeps (256 MiB unless set), so writes are refused and nothing is stored; reads go on, and `/v1/admin/health` reports it under `disk`. Writes resume by themselves once space is freed: retry after `Retry-After` seconds with the same event ids.",
  },
  'internal-error': {
    status: 500,
    title: 'Internal error',
    about:
      'Something failed on our side. The `instance` identifies the request in the server logs.',
  },
} as const satisfies Record<string, { status: number; title: string; about: string }>;

export type ProblemSlug = keyof typeof PROBLEMS;

export function problemType(slug: ProblemSlug): string {
  return `/problems/${slug}`;
}

/** An expected failure the client should see; anything else thrown is a bug and answers 500. */
export class ProblemError extends Error {
  readonly status: number;
  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = PROBLEMS[slug].status;
  }
}

import { ArbiterError } from '../errors.ts';
import type { EvaluateOptions, OfflineRun } from '../evaluation.ts';
import type { NodeArbiterOptions } from '../options.ts';
import { PreparedAttributes } from '../prepared-attributes.ts';
import type { PromptsApi, ResolvedPrompt } from '../prompts.ts';
import type {
  Attributes,
  ClientStats,
  EventType,
  Logger,
  PromptResult,
  TrackPayload,
} from '../types.ts';
import { bindMethods } from './bind-methods.ts';
import { ConfigStore } from './config-store.ts';
import * as C from './constants.ts';
import { EvaluationApi } from './evaluate/api.ts';
import { runEvaluation } from './evaluate/evaluate.ts';
import type { TaskMeasure } from './evaluate/task-measure.ts';
import { EventPipeline } from './event-pipeline.ts';
import { EventQueue } from './event-queue.ts';
import { isWireUserId, trackProblem, wireProblem } from './event-validation.ts';
import { exposureMetadata } from './exposure-attributes.ts';
import { PendingExposures } from './exposure-dedup.ts';
import { FLAG_HOOKS, flagHooks } from './flag-hooks.ts';
import type { ExposureTarget } from './holdouts-and-layers.ts';
import { INTEGRATION_HOOKS, type IntegrationHooks } from './integration-hooks.ts';
import { defaultLogger, safeLogger } from './logger.ts';
import { ModelCallRecorder } from './model-call-recorder.ts';
import type { Platform } from './platform.ts';
import { ConfigPoller, type PollOutcome } from './poller.ts';
import { promptsApi } from './prompt-resolver.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { sendTallies, TargetingTallies, talliesWanted } from './targeting-tallies.ts';
import { Transport } from './transport.ts';
import type { AnyAttributes, AsyncContext, CurrentUser, UserContext } from './user-context.ts';
import { UtcDay, utcDayNow } from './utc-day.ts';
import type { ArbiterEvent, WireVariant } from './wire.ts';
import { ANY_PROVIDER, wrapProviderClient } from './wrap.ts';

/** Keys that ship in client code; `evaluate` refuses them before any request. */
const PUBLISHABLE_KEY_PREFIX = 'svc_pk_';
/** `POST /v1/offline-runs/{run_id}/results` takes at most this many rows. */
const MAX_RESULTS_PER_REQUEST = 500;

/** What the shared client reads; the platform-only options went into the platform. */
type ClientOptions = Omit<NodeArbiterOptions, 'offlineStorePath'>;

/** Events sent per batch: the option within 1 and the server's largest batch. */
function batchSizeOf(options: ClientOptions): number {
  return Math.min(Math.max(1, options.batchSize ?? C.EVENT_BATCH_SIZE), C.MAX_EVENT_BATCH_SIZE);
}

/**
 * The client. `assign`, `getPrompt`, `getVariables` and `track` answer from memory and never
 * throw; the network is touched only by the background poller and the event pipeline.
 */
export class ArbiterClient {
  readonly #logger: Logger;
  readonly #store: ConfigStore;
  readonly #queue: EventQueue;
  readonly #poller: ConfigPoller;
  readonly #pipeline: EventPipeline;
  readonly #users: UserContext;
  readonly #uuid: () => string;
  /** The UTC day exposures and tallies are de-duplicated by; null when neither is tracked. */
  readonly #day: UtcDay | null;
  /** Whether `assign` sends exposures (`trackExposures`). */
  readonly #exposing: boolean;
  /** Users who reached each experiment's targeting today; null without tallies (`talliesWanted`). */
  readonly #tallies: TargetingTallies | null;
  /** `#tallies !== null`: `assign`'s checks with exposures go through `#pending` to be counted. */
  readonly #tallied: boolean;
  /** Exposures of `assign` calls and of holdouts, yet to be checked against their tables. */
  readonly #pending = new PendingExposures<ExposureTarget>(() => this.#checkExposures());
  /** Whether an exposure carries its call's attributes in `metadata.attributes`. */
  readonly #exposureAttributes: boolean;
  readonly #prefetch: readonly string[];
  readonly #readyPromise: Promise<boolean>;
  readonly #unhook: () => void;
  #closing: Promise<void> | null = null;
  /** One log line per stretch of drops from a full queue. */
  #overflowing = false;
  #droppedAfterClose = 0;
  /** Warnings that would otherwise repeat on every call. */
  readonly #warned = new Set<string>();
  readonly #recorder: ModelCallRecorder;
  readonly #transport: Transport;
  readonly #publishableKey: boolean;
  readonly #batchSize: number;
  readonly #retry: RetryPolicy;
  /** The `evaluate` task running in this async context, whose model calls it measures. */
  readonly #tasks: AsyncContext<TaskMeasure>;
  readonly #platform: Platform;
  /** The OpenFeature providers' listeners of each poll's outcome (`FLAG_HOOKS`). */
  readonly #pollListeners = new Set<(outcome: PollOutcome) => void>();
  /**
   * Stored prompts by name (docs/prompts.md): `prompts.get(name, user, default)` answers from
   * the polled config, with a covering experiment's exposure, never over the network.
   */
  declare readonly prompts: PromptsApi;

  /** @internal The entry points (Node, browser) pass their platform. */
  constructor(options: ClientOptions, platform: Platform) {
    bindMethods(this, ArbiterClient.prototype);
    this.#logger = safeLogger(options.logger ?? defaultLogger());
    const apiKey = apiKeyOf(options, platform);
    this.#retry = retryPolicyOf(options);
    const transport = new Transport({
      baseUrl: options.baseUrl ?? platform.env('ARBITER_BASE_URL') ?? C.DEFAULT_BASE_URL,
      apiKey,
      fetch: fetchOf(options),
      timeoutMs: options.requestTimeoutMs ?? C.REQUEST_TIMEOUT_MS,
      ...this.#retry,
    });
    this.#transport = transport;
    this.#publishableKey = apiKey.startsWith(PUBLISHABLE_KEY_PREFIX);
    this.#platform = platform;
    this.#tasks = platform.asyncContext<TaskMeasure>();
    this.#users = platform.asyncContext<CurrentUser>();
    this.#uuid = () => platform.randomUUID();
    this.#store = new ConfigStore(
      positiveInteger(options.exposureDedupCapacity, C.EXPOSURE_DEDUP_CAPACITY),
    );
    this.#exposing = options.trackExposures ?? true;
    const { trackTargetingTallies } = options;
    const tallying = talliesWanted(trackTargetingTallies, this.#exposing, apiKey, this.#logger);
    this.#day = this.#exposing || tallying ? new UtcDay() : null;
    this.#tallies = tallying && this.#day !== null ? new TargetingTallies(this.#day) : null;
    this.#tallied = this.#tallies !== null;
    this.#exposureAttributes = options.exposureAttributes === true;
    this.#prefetch = [...(options.experiments ?? [])];
    this.#queue = new EventQueue(options.queueCapacity ?? C.EVENT_QUEUE_CAPACITY);
    this.#poller = new ConfigPoller({
      transport,
      store: this.#store,
      intervalMs: options.pollIntervalMs ?? C.CONFIG_POLL_INTERVAL_MS,
      logger: this.#logger,
      onPoll: (outcome) => {
        for (const listener of this.#pollListeners) listener(outcome);
      },
    });
    this.#batchSize = batchSizeOf(options);
    this.#pipeline = new EventPipeline({
      transport,
      queue: this.#queue,
      store: platform.offlineStore(apiKey),
      logger: this.#logger,
      batchSize: this.#batchSize,
      flushIntervalMs: options.flushIntervalMs ?? C.FLUSH_INTERVAL_MS,
      onAck: (version) => this.#poller.noteServerVersion(version),
      ...(this.#tallies === null
        ? {}
        : { afterDrain: this.#sendTallies(this.#tallies, transport) }),
    });
    this.#recorder = this.#modelCallRecorder(options);
    this.#defineHooks();
    // Not enumerable, as the bound methods are not: the instance spreads to nothing.
    Object.defineProperty(this, 'prompts', { value: this.#promptsApi() });
    this.#readyPromise = this.#poller.start().then(() => this.#prefetched());
    this.#pipeline.start();
    this.#unhook = platform.onShutdown((urgent) => this.#flushAtShutdown(urgent));
  }

  /** Model calls recorded into the queue, measured in their task, counted for holdouts. */
  #modelCallRecorder(options: ClientOptions): ModelCallRecorder {
    return new ModelCallRecorder({
      store: this.#store,
      recordText: options.recordModelText ?? true,
      enqueue: (type, payload) => this.#enqueue(type, payload),
      warnOnce: (key, message) => this.#warnOnce(key, message),
      currentTask: () => this.#tasks.current(),
      holdoutExposures: this.#pending,
      tallies: this.#tallies,
      exposure: (base, attributes) => this.#exposure(base, attributes),
    });
  }

  /**
   * What the framework integrations and the OpenFeature providers read. Not methods: they stay
   * out of the public surface and the type declarations.
   */
  #defineHooks(): void {
    Object.defineProperty(this, INTEGRATION_HOOKS, { value: this.#integrationHooks() });
    Object.defineProperty(this, FLAG_HOOKS, {
      value: flagHooks(this.#store, this.#pollListeners),
    });
  }

  /** `prompts`: resolved on the store's current config, exposures through `assign`. */
  #promptsApi(): PromptsApi {
    return promptsApi({
      index: () => this.#store.promptIndex,
      assign: (experiment, user, attributes) => this.assign(experiment, user, attributes),
      warnOnce: (key, message) => this.#warnOnce(key, message),
    });
  }

  /** The platform is shutting down: send what is queued, unless `close` already is. */
  #flushAtShutdown(urgent: boolean): void {
    if (this.#closing === null && (this.#queue.length > 0 || (this.#tallies?.size ?? 0) > 0)) {
      void this.#pipeline.flush({ keepalive: urgent });
    }
  }

  /** What the framework integrations call: the current user, a model call opened, a warning. */
  #integrationHooks(): IntegrationHooks {
    return {
      currentUser: () => this.#users.current()?.user,
      open: (experiment, user, source) =>
        this.#recorder.open(experiment, user === undefined ? undefined : this.#who(user), source),
      warnOnce: (key, message) => this.#warnOnce(key, message),
    };
  }

  /**
   * Resolves after the first config load: true when every experiment named in `experiments`
   * is in the config, false when the config could not be loaded or lacks one (logged). Never
   * rejects; polling goes on either way.
   */
  ready(): Promise<boolean> {
    return this.#readyPromise;
  }

  /**
   * The variant key of `user` in `experiment` (name or id), or null: not targeted, not
   * enrolled, unknown experiment, or no config yet. Null means the control behaviour. Local,
   * synchronous; the first assignment of a user sends one `exposure` event in the background.
   * `attributes` are what the experiment's targeting reads (plain, or a `PreparedAttributes` made
   * once for many calls: the same answers); only with `exposureAttributes: true` does the
   * exposure carry them (`metadata.attributes`).
   */
  assign(
    experiment: string,
    user: string,
    attributes?: Attributes | PreparedAttributes,
  ): string | null {
    try {
      const entry = this.#store.lookup(experiment);
      if (entry === undefined || typeof user !== 'string') return null;
      return this.#exposing
        ? this.#store.exposedVariantOf(entry, user, attributes, this.#pending, this.#tallied)
        : this.#store.variantOf(entry, user, attributes, null, this.#tallies);
    } catch (err) {
      this.#warnOnce('assign', `assign failed, returning null: ${String(err)}`);
      return null;
    }
  }

  /** The prompt of the user's variant, or `defaultPrompt` (with `fallback: true`) when there is none. */
  getPrompt(
    experiment: string,
    user: string,
    defaultPrompt: string,
    attributes?: Attributes | PreparedAttributes,
  ): PromptResult {
    const { variant, wire } = this.#assignWire(experiment, user, attributes);
    const prompt = wire?.prompt;
    return typeof prompt === 'string'
      ? { variant, prompt, fallback: false }
      : { variant, prompt: defaultPrompt, fallback: true };
  }

  /** The variables of the user's variant merged over `defaults` (a new object; `defaults` is untouched). */
  getVariables<T extends Record<string, unknown>>(
    experiment: string,
    user: string,
    defaults: T,
    attributes?: Attributes | PreparedAttributes,
  ): T {
    const variables = this.#assignWire(experiment, user, attributes).wire?.variables;
    const merged = { ...defaults };
    if (typeof variables === 'object' && variables !== null) Object.assign(merged, variables);
    return merged;
  }

  /** `assign`, with the assigned variant's wire object (its `prompt` and `variables`). */
  #assignWire(
    experiment: string,
    user: string,
    attributes: Attributes | PreparedAttributes | undefined,
  ): { variant: string | null; wire: WireVariant | undefined } {
    const variant = this.assign(experiment, user, attributes);
    const wire =
      variant === null ? undefined : this.#store.lookup(experiment)?.variants.get(variant);
    return { variant, wire };
  }

  /**
   * Queues an event with a fresh `event_id` and the current time, and returns at once. Sent in
   * background batches; see the README for retries and the offline store. Never throws.
   */
  track(event: EventType, payload: TrackPayload): void {
    try {
      const problem = trackProblem(event, payload);
      if (problem !== null) {
        this.#logger.warn(`track(${event}): ${problem}, event dropped`);
        return;
      }
      // The canonical id keeps an experiment's events together should it ever be renamed.
      const entry = this.#store.lookup(payload.experiment_id);
      this.#enqueue(
        event,
        { ...payload, experiment_id: entry?.id ?? payload.experiment_id },
        { checked: true },
      );
    } catch (err) {
      this.#warnOnce('track', `track failed: ${String(err)}`);
    }
  }

  /**
   * A view of an OpenAI or Anthropic client: calls to `chat.completions.create`,
   * `responses.create` and `messages.create` (streaming included) made inside
   * `withUser(user, fn)` record an `exposure` and a `model_call` event. Calls outside
   * `withUser`, or for users not enrolled, pass through unrecorded.
   */
  wrap<T extends object>(providerClient: T, experiment: string): T {
    if (typeof providerClient !== 'object' || providerClient === null) return providerClient;
    return wrapProviderClient(providerClient, (reader, params, invoke) =>
      this.#recorder.throughWrap(experiment, this.#users.current(), reader, params, invoke),
    );
  }

  /**
   * Runs `fn` with `user` (and the `attributes` targeting reads) as the user of the wrapped
   * clients' and the framework integrations' calls it makes.
   */
  withUser<R>(user: string, fn: () => R, attributes?: Attributes | PreparedAttributes): R {
    return this.#users.run({ user, attributes, prompt: this.#users.current()?.prompt }, fn);
  }

  /**
   * Runs `fn` with `prompt` (what `prompts.get` answered) as the stored prompt of the model
   * calls it makes: each recorded `model_call` (`wrap`, `interceptModelCall`, the AI SDK and
   * LangChain integrations) carries its `prompt_name` and `prompt_version`. A default (no
   * version) records nothing. Keeps the enclosing `withUser`'s user; never throws.
   */
  withPrompt<R>(prompt: Pick<ResolvedPrompt, 'name' | 'version'>, fn: () => R): R {
    const current = this.#users.current();
    const ref =
      prompt !== null &&
      typeof prompt === 'object' &&
      typeof prompt.name === 'string' &&
      typeof prompt.version === 'number'
        ? { name: prompt.name, version: prompt.version }
        : undefined;
    return this.#users.run(
      { user: current?.user as string, attributes: current?.attributes, prompt: ref },
      fn,
    );
  }

  /**
   * The explicit form of `wrap`: runs `fn` with the user's variant (null when not enrolled or
   * no config yet), recording an `exposure` and a `model_call` with the latency of `fn` and the
   * tokens and model found in its result (OpenAI and Anthropic shapes, streams included).
   * Errors of `fn` are recorded, then rethrown.
   */
  interceptModelCall<T>(
    experiment: string,
    user: string,
    fn: (variant: string | null) => T | PromiseLike<T>,
    attributes?: Attributes | PreparedAttributes,
  ): Promise<T> {
    const prompt = this.#users.current()?.prompt;
    return this.#recorder.explicit(experiment, { user, attributes, prompt }, ANY_PROVIDER, fn);
  }

  /**
   * Runs `task` on every item of `dataset` for each variant of `experiment` (and each repeat),
   * uploads the outputs, completes the run and returns it as the server scored it. Model calls
   * the task makes through clients from `wrap` are measured for its results and send no
   * events. Needs the org's secret key. Unlike the other methods it throws (`ArbiterError`):
   * a publishable key, a refused request, or uploads that fail after their retries (the error
   * names the run, which `runId` resumes). What the task throws is recorded, never thrown.
   */
  async evaluate(options: EvaluateOptions): Promise<OfflineRun> {
    if (this.#publishableKey) {
      throw new ArbiterError(
        "evaluate needs the org's secret key (svc_sk_…): this client has a publishable key, which may not read datasets or write runs",
      );
    }
    return runEvaluation(options, {
      api: new EvaluationApi(this.#transport),
      scope: this.#tasks,
      progressOutput: this.#platform.progressOutput(),
      // The results route takes at most 500 rows a request.
      batchSize: Math.min(this.#batchSize, MAX_RESULTS_PER_REQUEST),
      retry: this.#retry,
      warn: (message) => this.#logger.warn(message),
    });
  }

  /** `user` with the attributes of the enclosing `withUser` when it runs for the same user. */
  #who(user: string): CurrentUser {
    const current = this.#users.current();
    return current !== undefined && current.user === user
      ? current
      : { user, attributes: undefined, prompt: current?.prompt };
  }

  /** Sends everything queued so far (or spills it); resolves when done. Never rejects. */
  flush(): Promise<void> {
    this.#checkExposures();
    return this.#pipeline.flush();
  }

  /** Stops polling, delivers what is queued, and releases timers and listeners. Never rejects. */
  close(): Promise<void> {
    if (this.#closing === null) {
      this.#checkExposures();
      this.#poller.close();
      this.#day?.close();
      this.#unhook();
      this.#closing = this.#pipeline.close();
    }
    return this.#closing;
  }

  stats(): ClientStats {
    this.#checkExposures();
    return { queued: this.#queue.length, ...this.#pipeline.counts, dropped: this.#dropped() };
  }

  #sendTallies(tallies: TargetingTallies, transport: Transport) {
    return (keepalive: boolean) => sendTallies(tallies, transport, this.#logger, keepalive);
  }

  #dropped(): number {
    return this.#queue.dropped + this.#pipeline.counts.dropped + this.#droppedAfterClose;
  }

  async #prefetched(): Promise<boolean> {
    if (!this.#store.loaded) return false;
    const missing = this.#prefetch.filter((name) => this.#store.lookup(name) === undefined);
    if (missing.length > 0) this.#logger.warn(`ready(): not in the config: ${missing.join(', ')}`);
    return missing.length === 0;
  }

  #checkExposures(): void {
    if (this.#pending.count > 0) {
      // Without `trackExposures` only model calls queue holdout exposures: rare enough to read
      // the clock for.
      this.#pending.drain(this.#day?.current ?? utcDayNow(), this.#expose, this.#countTally);
    }
  }

  /** A tallied check the exposure table found first of the day (see `PendingExposures`). */
  readonly #countTally = (entry: ExposureTarget, day: number, matched: boolean): void => {
    this.#tallies?.count(entry.id, day, matched);
  };

  /** The first call of the day for a user and variant: the exposure table said so. */
  readonly #expose = (
    entry: ExposureTarget,
    user: string,
    variant: string,
    attributes: AnyAttributes | undefined,
  ): void => {
    // Only here, after the table: an already exposed user (the steady state) skips the scan of
    // the id. One the API would refuse stays in the table as handled, and is never queued.
    if (!isWireUserId(user)) return;
    this.#enqueue(
      'exposure',
      this.#exposure({ experiment_id: entry.id, user_id: user, variant }, attributes),
    );
  };

  /**
   * An exposure's fields, with the call's attributes in `metadata.attributes` when
   * `exposureAttributes` is on and they were passed. Attributes the API would refuse are left
   * out (one warning, then a debug line each time): the exposure itself is always sent.
   */
  #exposure(base: TrackPayload, given: AnyAttributes | undefined): TrackPayload {
    if (!this.#exposureAttributes) return base;
    // A prepared user's exposure carries what was prepared, as the plain object's would.
    const attributes = given instanceof PreparedAttributes ? given.source : given;
    if (attributes === undefined || attributes === null) return base;
    const found = exposureMetadata(attributes as Attributes);
    if ('metadata' in found) return { ...base, metadata: found.metadata };
    const message = `exposure sent without its attributes: ${found.problem}`;
    if (this.#warned.has('exposure-attributes')) this.#logger.debug?.(message);
    else this.#warnOnce('exposure-attributes', message);
    return base;
  }

  /** `checked`: `track` has already told the caller why an event is refused. */
  #enqueue(type: EventType, payload: TrackPayload, { checked = false } = {}): void {
    // Exposures of earlier calls first, so that the events keep the order of the calls.
    if (this.#pending.count > 0) this.#checkExposures();
    if (this.#closing !== null) {
      this.#droppedAfterClose++;
      this.#warnOnce('closed', 'events after close() are dropped');
      return;
    }
    // Exposures and model calls made for the caller: one the API would refuse is not queued.
    const problem = checked ? null : wireProblem(payload);
    if (problem !== null) {
      this.#logger.warn(`${type} not recorded: ${problem}`);
      return;
    }
    const event: ArbiterEvent = {
      ...payload,
      event_id: this.#uuid(),
      type,
      timestamp: new Date().toISOString(),
    };
    const outcome = this.#queue.push(event);
    if (outcome === 'queued') {
      this.#overflowing = false;
    } else {
      if (!this.#overflowing) {
        this.#logger.warn(
          `event queue full (${this.#queue.length}): dropping events, exposures first, see stats()`,
        );
      }
      this.#overflowing = true;
      if (outcome === 'dropped') return;
    }
    this.#pipeline.notify();
  }

  #warnOnce(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#logger.warn(message);
  }
}

/** A count option: a whole number of at least 1, else the default. */
function positiveInteger(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value)
    ? Math.max(1, Math.floor(value))
    : fallback;
}

/** The API key from the options or ARBITER_API_KEY; none is the one error a constructor throws. */
function apiKeyOf(options: ClientOptions, platform: Platform): string {
  const apiKey = options.apiKey ?? platform.env('ARBITER_API_KEY');
  if (apiKey === undefined || apiKey === '') {
    throw new ArbiterError('Arbiter: no API key. Pass { apiKey } or set ARBITER_API_KEY.');
  }
  return apiKey;
}

function fetchOf(options: ClientOptions): typeof fetch {
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  if (typeof fetchImpl !== 'function') {
    throw new ArbiterError('Arbiter: no fetch in this runtime. Pass { fetch }.');
  }
  return fetchImpl;
}

function retryPolicyOf(options: ClientOptions): RetryPolicy {
  return {
    maxAttempts: Math.max(1, options.maxAttempts ?? C.MAX_ATTEMPTS),
    baseDelayMs: options.retryBaseDelayMs ?? C.RETRY_BASE_DELAY_MS,
    maxDelayMs: options.retryMaxDelayMs ?? C.RETRY_MAX_DELAY_MS,
    retryAfterCapMs: options.retryAfterCapMs ?? C.RETRY_AFTER_CAP_MS,
  };
}

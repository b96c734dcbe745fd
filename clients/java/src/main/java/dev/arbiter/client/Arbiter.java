package dev.arbiter.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The Arbiter client: one instance, shared by the whole application, from
 * {@link #builder()}. {@code assign}, {@code getPrompt}, {@code getVariables} and {@code track}
 * answer from memory on the caller's thread and never throw; the network is touched only by
 * the client's one daemon thread, which polls the config and delivers events in batches.
 *
 * <pre>{@code
 * try (Arbiter arbiter = Arbiter.builder().experiments("checkout-prompt").build()) {
 *   PromptResult p = arbiter.getPrompt("checkout-prompt", userId, "You are a helpful assistant.");
 * }
 * }</pre>
 */
public final class Arbiter implements AutoCloseable {
  /** This library's version (the pom's, written at build time), sent in {@code User-Agent}. */
  public static final String VERSION = BuildVersion.read();

  private static final String PUBLISHABLE_KEY_PREFIX = "svc_pk_";

  /** Logs a message the first time its key is seen (messages that would repeat per call). */
  interface WarnOnce {
    void warn(String key, String message);
  }

  private final ArbiterLogger logger;
  final ConfigStore store;
  private final EventQueue queue;
  private final EventPipeline pipeline;
  private final BackgroundWorker worker;
  private final ModelCallRecorder recorder;
  private final boolean trackExposures;
  /** Users who reached each targeting today; null when the client does not tally. */
  private final TargetingTallies tallies;
  /** Exposure checks of tables past the L2 cache, decided in batches; null with exposures off. */
  private final ExposureBatches batches;
  /** Whether an exposure carries its call's attributes as {@code metadata.attributes}. */
  private final boolean exposureAttributes;
  /** What decides the UTC day of an exposure. */
  private final UtcDayClock day;
  private final List<String> prefetch;
  private final long closeTimeoutMs;
  private final CompletableFuture<Boolean> ready;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final EventStamper stamper;
  private final Prompts prompts;
  private final Transport transport;
  /** The config poller, whose outcomes {@link FlagHooks} listens to. */
  final ConfigPoller poller;
  private final boolean publishableKey;
  /**
   * The user of {@link #withUser}: per client and per thread. Each scope puts back what it
   * found, and removes the entry when it found none, so no thread keeps a user after its scope.
   */
  private final ThreadLocal<String> users = new ThreadLocal<>();
  /** The attributes of the innermost {@link #withUser} scope on this thread, or null. */
  private final ThreadLocal<Map<String, ?>> userAttributes = new ThreadLocal<>();

  /**
   * What {@link Arbiter#withUser(String, UserCall)} runs: a {@code Callable} whose checked
   * exception is a type parameter, inferred from the lambda (none, for most lambdas), as in the
   * JDK's {@code ScopedValue.CallableOp}. A {@code Callable} {@code c} passes as {@code c::call}.
   */
  @FunctionalInterface
  public interface UserCall<T, X extends Throwable> {
    T call() throws X;
  }

  private Arbiter(Builder b, String apiKey, String baseUrl) {
    this.logger = new SafeLogger(b.logger != null ? b.logger : ArbiterLogger.system());
    HttpClient http = b.httpClient != null ? b.httpClient : HttpClient.newBuilder()
        .connectTimeout(Duration.ofMillis(Math.max(1, Builder.millis(b.requestTimeout))))
        .build();
    Transport transport = new Transport(http, baseUrl, apiKey, Builder.millis(b.requestTimeout),
        new RetryPolicy(b.maxAttempts, Builder.millis(b.retryBaseDelay),
            Builder.millis(b.retryMaxDelay), Builder.millis(b.retryAfterCap)));
    this.transport = transport;
    this.publishableKey = apiKey.startsWith(PUBLISHABLE_KEY_PREFIX);
    this.trackExposures = b.trackExposures;
    this.tallies = TargetingTallies.wanted(b.trackTargetingTallies, b.trackExposures, apiKey,
        logger) ? new TargetingTallies() : null;
    this.exposureAttributes = b.exposureAttributes;
    this.batches = trackExposures
        ? new ExposureBatches(this::decideExposure, b.exposureBatchFromSlots) : null;
    LongSupplier clock = b.clock != null ? b.clock : System::currentTimeMillis;
    // A clock of the tests is read on every call: no ticker follows its jumps.
    this.day = b.clock != null ? new UtcDayClock(b.clock) : UtcDayClock.system();
    this.store = new ConfigStore(Math.min(Math.max(1, b.exposureDedupCapacity),
        ExposureTable.MAX_CAPACITY));
    this.prefetch = List.copyOf(b.experiments);
    this.closeTimeoutMs = Builder.millis(b.closeTimeout);
    this.queue = new EventQueue(b.queueCapacity);
    OfflineStore offline = b.offlineStorePath == null ? null
        : new FileOfflineStore(b.offlineStorePath, ArbiterDefaults.OFFLINE_STORE_CAPACITY);
    int batchSize = Math.min(Math.max(1, b.batchSize), ArbiterDefaults.MAX_EVENT_BATCH_SIZE);
    BackgroundWorker[] self = new BackgroundWorker[1];
    this.pipeline = new EventPipeline(transport, queue, offline, logger, batchSize,
        Builder.millis(b.flushInterval), version -> {
          if (version > store.version()) self[0].refreshSoon();
        }, batches == null ? null : batches::decideAll,
        tallies == null ? null : new TallySender(tallies, transport, logger));
    ConfigPoller poller = new ConfigPoller(transport, store, logger);
    this.poller = poller;
    this.worker = new BackgroundWorker(poller, pipeline, queue, transport, logger,
        Builder.millis(b.pollInterval), b.sendFullBatches ? batchSize : Integer.MAX_VALUE);
    self[0] = worker;
    this.stamper = new EventStamper(queue, logger, this::warnOnce, worker::eventQueued, clock);
    this.recorder = new ModelCallRecorder(store, b.recordModelText, this::enqueueRecorded,
        this::warnOnce, this::recordedVariantOf, this::withAttributes);
    this.prompts = new Prompts(this, store::prompts);
    this.ready = worker.firstLoad().thenApply(ignored -> prefetched());
    worker.start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Completes after the first config load: true when every experiment named in
   * {@link Builder#experiments} is in the config, false when the config could not be loaded or
   * lacks one (logged). Never completes exceptionally; polling goes on either way.
   */
  public CompletableFuture<Boolean> ready() {
    return ready.copy();
  }

  /**
   * The variant key of {@code user} in {@code experiment} (name or id), or null: not targeted,
   * not enrolled, unknown experiment, or no config yet. Null means the control behaviour.
   * Local, no network, never blocks, never throws; the first assignment of a user queues one
   * {@code exposure}. An experiment with targeting reads no attributes here: see
   * {@link #assign(String, String, Map)}.
   */
  public String assign(String experiment, String user) {
    return assign(experiment, user, (Map<String, ?>) null);
  }

  /**
   * {@link #assign(String, String)} with the user's attributes, what the experiment's targeting
   * reads (plan, locale, app version...: String, Number, Boolean, null, List and Map values, as
   * JSON holds them). A user the targeting leaves out gets null and sends no exposure. The
   * attributes stay in memory: no event carries them, unless
   * {@link Builder#exposureAttributes(boolean)} is on, and then only exposures do.
   *
   * @param attributes the user's attributes; null reads as none
   */
  public String assign(String experiment, String user, Map<String, ?> attributes) {
    try {
      CompiledExperiment entry = store.lookup(experiment);
      if (entry == null || user == null) return null;
      if (entry.status != CompiledExperiment.Status.RUNNING) {
        return concludedVariantOf(entry, user, trackExposures, attributes);
      }
      // Holdouts, then the layer, then targeting; an experiment with none reads one field.
      if (!entry.open && !enters(entry, user, attributes)) return null;
      // The bucket hash serves the exposure's fingerprint too: the id is read once.
      int hash = entry.bucketer.hashOf(user);
      int range = entry.rangeOf(hash);
      // Past the targeting: a tallied experiment counts the user matched, on the first check.
      boolean tallied = entry.targeted && tallies != null;
      if (range < 0) {
        if (tallied) tallies.reached(entry, hash, user, true, day.dayTime());
        return null;
      }
      if (!tallied && trackExposures && (attributes == null || !exposureAttributes)
          && batches.batches(entry)) {
        batches.add(entry, user, range, entry.fingerprint(hash, user, range), day.dayTime());
        return entry.owner(range);
      }
      boolean firstExposure = trackExposures && exposeOnce(entry, user, hash, range, attributes);
      // An exposure in the table has the user's tally beside it: only a new one looks it up.
      if (tallied && (firstExposure || !trackExposures)) {
        tallies.reached(entry, hash, user, true, day.dayTime());
      }
      return entry.owner(range);
    } catch (RuntimeException e) {
      warnOnce("assign", "assign failed, returning null: " + e);
      return null;
    }
  }

  /**
   * {@link #assign(String, String, Map)} with attributes prepared beforehand: the same answer
   * and exposure, the targeting read from the fields they resolved (see
   * {@link PreparedAttributes}).
   *
   * @param attributes the user's prepared attributes; null reads as none
   */
  public String assign(String experiment, String user, PreparedAttributes attributes) {
    // The prepared value travels as the map it is, which the targeting tells apart.
    return assign(experiment, user, PreparedAttributes.mapOf(attributes));
  }

  /**
   * Stored prompts by name (docs/prompts.md): {@code prompts().get(name, user, default)} gives
   * the user's variant's version when a running experiment covers the prompt, else the version
   * under the {@code production} label (or the label named), else the default; from memory.
   */
  public Prompts prompts() {
    return prompts;
  }

  /** The prompt of the user's variant, or {@code defaultPrompt} (with {@code fallback} true) when there is none. */
  public PromptResult getPrompt(String experiment, String user, String defaultPrompt) {
    return getPrompt(experiment, user, defaultPrompt, (Map<String, ?>) null);
  }

  /** {@link #getPrompt(String, String, String)} with the attributes targeting reads. */
  public PromptResult getPrompt(String experiment, String user, String defaultPrompt,
      Map<String, ?> attributes) {
    String variant = assign(experiment, user, attributes);
    CompiledExperiment.Variant v = variantConfig(experiment, variant);
    return v != null && v.prompt != null ? new PromptResult(variant, v.prompt, false)
        : new PromptResult(variant, defaultPrompt, true);
  }

  /** {@link #getPrompt(String, String, String, Map)} with attributes prepared beforehand. */
  public PromptResult getPrompt(String experiment, String user, String defaultPrompt,
      PreparedAttributes attributes) {
    return getPrompt(experiment, user, defaultPrompt, PreparedAttributes.mapOf(attributes));
  }

  /**
   * The variables of the user's variant merged over {@code defaults}, as a new map
   * ({@code defaults} is untouched). Values are what the config's JSON holds: String, Long,
   * Double, Boolean, null, List and Map.
   */
  public Map<String, Object> getVariables(String experiment, String user,
      Map<String, ?> defaults) {
    return getVariables(experiment, user, defaults, (Map<String, ?>) null);
  }

  /** {@link #getVariables(String, String, Map)} with the attributes targeting reads. */
  public Map<String, Object> getVariables(String experiment, String user,
      Map<String, ?> defaults, Map<String, ?> attributes) {
    Map<String, Object> merged = new LinkedHashMap<>();
    try {
      if (defaults != null) merged.putAll(defaults);
      CompiledExperiment.Variant v =
          variantConfig(experiment, assign(experiment, user, attributes));
      if (v != null && v.variables != null) merged.putAll(v.variables);
    } catch (RuntimeException e) {
      warnOnce("variables", "getVariables failed, returning the defaults: " + e);
    }
    return merged;
  }

  /** {@link #getVariables(String, String, Map, Map)} with attributes prepared beforehand. */
  public Map<String, Object> getVariables(String experiment, String user,
      Map<String, ?> defaults, PreparedAttributes attributes) {
    return getVariables(experiment, user, defaults, PreparedAttributes.mapOf(attributes));
  }

  /**
   * Queues an event with a fresh {@code event_id} and the current time, and returns at once.
   * {@code payload} holds the wire fields ({@code experiment_id}, name or id, {@code user_id},
   * and for a business event {@code business_metric} and {@code value}). Never throws; an event
   * the API would refuse (a null type included) is dropped with a log line.
   */
  public void track(EventType type, Map<String, ?> payload) {
    try {
      String name = type == null ? null : type.wireName();
      String problem = EventValidation.problem(type, payload);
      if (problem != null) {
        logger.warn("track(" + name + "): " + problem + ", event dropped");
        return;
      }
      Map<String, Object> fields = new LinkedHashMap<>(payload);
      // The canonical id keeps an experiment's events together should it ever be renamed.
      CompiledExperiment entry = store.lookup((String) payload.get("experiment_id"));
      Object variant = payload.get("variant");
      if (entry != null && variant != null && !entry.variants.containsKey(variant)) {
        logger.warn("track(" + name + "): variant " + variant + " is not a variant of "
            + entry.name + ", event dropped");
        return;
      }
      if (entry != null) fields.put("experiment_id", entry.id);
      if (batches != null) batches.decideMine();
      stamper.enqueue(type, fields);
    } catch (RuntimeException e) {
      warnOnce("track", "track failed: " + e);
    }
  }

  /**
   * {@link #track(EventType, Map)} with the type's wire name ({@code "exposure"},
   * {@code "model_call"}, {@code "business_event"}); any other name is dropped with a log line.
   *
   * @deprecated Use {@link #track(EventType, Map)}; this form goes in 0.3.0.
   */
  @Deprecated(since = "0.2.0", forRemoval = true)
  public void track(String type, Map<String, ?> payload) {
    EventType known = EventType.fromWireName(type);
    if (known == null) {
      logger.warn("track(" + type + "): unknown event type " + type + ", event dropped");
      return;
    }
    track(known, payload);
  }

  /** {@code track(EventType.BUSINESS_EVENT, ...)} for the usual case: one outcome with a value. */
  public void trackBusinessEvent(String experiment, String user, String businessMetric,
      double value) {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("experiment_id", experiment);
    payload.put("user_id", user);
    payload.put("business_metric", businessMetric);
    payload.put("value", value);
    track(EventType.BUSINESS_EVENT, payload);
  }

  /**
   * Runs {@code call} with the user's variant (null when not enrolled or no config yet) and
   * records an {@code exposure} and a {@code model_call} with its latency, and the model and
   * token counts its result exposes ({@code model()}, {@code usage().promptTokens()} /
   * {@code inputTokens()} ..., as the OpenAI and Anthropic Java SDKs' responses do). A
   * {@code CompletionStage} result is timed until it completes. Exceptions of {@code call} are
   * recorded, then rethrown unchanged.
   */
  public <T> T interceptModelCall(String experiment, String user, Function<String, T> call) {
    // The attributes of the enclosing withUser scope, when it is this user's.
    Map<String, ?> attributes = user != null && user.equals(users.get()) ? userAttributes.get()
        : null;
    return recorder.intercept(experiment, user, attributes, call);
  }

  /**
   * {@link #interceptModelCall(String, String, Function)} with the attributes targeting reads.
   */
  public <T> T interceptModelCall(String experiment, String user, Map<String, ?> attributes,
      Function<String, T> call) {
    return recorder.intercept(experiment, user, attributes, call);
  }

  /**
   * {@link #interceptModelCall(String, String, Map, Function)} with attributes prepared
   * beforehand.
   */
  public <T> T interceptModelCall(String experiment, String user, PreparedAttributes attributes,
      Function<String, T> call) {
    return recorder.intercept(experiment, user, PreparedAttributes.mapOf(attributes), call);
  }

  /**
   * {@link #interceptModelCall(String, String, Function)} for the user of the enclosing
   * {@link #withUser} scope on this thread, the Java form of the other clients' {@code wrap}:
   * the request code names the user once, the model calls deep inside it need not. Outside
   * any scope the call runs with a null variant and is not recorded (logged once).
   */
  public <T> T interceptModelCall(String experiment, Function<String, T> call) {
    String user = users.get();
    if (user == null && recorder.measuring()) return recorder.intercept(experiment, null, null, call);
    if (user == null) {
      warnOnce("model-call-user", "interceptModelCall: model call outside withUser(), not recorded");
      return call.apply(null);
    }
    return recorder.intercept(experiment, user, userAttributes.get(), call);
  }

  /**
   * Runs {@code call} with {@code user} as the user of the model calls it makes on this thread
   * ({@link #interceptModelCall(String, Function)} and the framework integrations, such as
   * LangChain4j's listener), and returns what it returns, or throws what it throws.
   *
   * <p>Scopes nest: an inner {@code withUser} wins until it ends, then the outer user is back,
   * whether {@code call} returned or threw. The user is a thread-local of this client: it does
   * not follow {@code call} into other threads. Work that {@code call} hands to an executor, a
   * {@code CompletableFuture.supplyAsync} or a new thread runs without a user, unless that task
   * calls {@code withUser} itself; a thread pool never inherits a user from the thread that
   * submitted to it. A model call records the user of the thread that starts it (LangChain4j's
   * streaming models start on the caller's thread and may finish on another: they are
   * attributed correctly).
   *
   * @param user the user id; null runs {@code call} with no user
   */
  public <T, X extends Throwable> T withUser(String user, UserCall<T, X> call) throws X {
    return withUser(user, (Map<String, ?>) null, call);
  }

  /**
   * {@link #withUser(String, UserCall)} with the user's attributes: the model calls made in
   * the scope are assigned with them, as {@link #assign(String, String, Map)} assigns.
   *
   * @param attributes the user's attributes; null reads as none
   */
  public <T, X extends Throwable> T withUser(String user, Map<String, ?> attributes,
      UserCall<T, X> call) throws X {
    String outer = users.get();
    Map<String, ?> outerAttributes = userAttributes.get();
    users.set(user);
    userAttributes.set(attributes);
    try {
      return call.call();
    } finally {
      if (outer == null) {
        users.remove();
      } else {
        users.set(outer);
      }
      if (outerAttributes == null) {
        userAttributes.remove();
      } else {
        userAttributes.set(outerAttributes);
      }
    }
  }

  /**
   * {@link #withUser(String, Map, UserCall)} with attributes prepared beforehand: the model
   * calls of the scope read the fields they resolved.
   */
  public <T, X extends Throwable> T withUser(String user, PreparedAttributes attributes,
      UserCall<T, X> call) throws X {
    return withUser(user, PreparedAttributes.mapOf(attributes), call);
  }

  /** {@link #withUser(String, UserCall)} for work that returns nothing. */
  public void withUser(String user, Runnable run) {
    withUser(user, (Map<String, ?>) null, run);
  }

  /** {@link #withUser(String, Map, UserCall)} for work that returns nothing. */
  public void withUser(String user, Map<String, ?> attributes, Runnable run) {
    withUser(user, attributes, () -> {
      run.run();
      return null;
    });
  }

  /** {@link #withUser(String, PreparedAttributes, UserCall)} for work that returns nothing. */
  public void withUser(String user, PreparedAttributes attributes, Runnable run) {
    withUser(user, PreparedAttributes.mapOf(attributes), run);
  }

  /**
   * Runs {@code call} with {@code prompt} (what {@link Prompts#get} answered) as the stored
   * prompt of the model calls it makes on this thread: each recorded {@code model_call}
   * ({@code interceptModelCall}, the LangChain4j listener) carries the prompt's name and version
   * ({@code metadata.prompt_name}, {@code metadata.prompt_version}). A default (no version)
   * records none. A thread-local scope, nesting as {@link #withUser} does.
   */
  public <T, X extends Throwable> T withPrompt(ResolvedPrompt prompt, UserCall<T, X> call)
      throws X {
    Map<String, Object> outer = recorder.prompt.get();
    Map<String, Object> ref = null;
    if (prompt != null && prompt.name() != null && prompt.version() != null) {
      ref = new LinkedHashMap<>();
      ref.put("prompt_name", prompt.name());
      ref.put("prompt_version", (long) prompt.version());
      ref = Collections.unmodifiableMap(ref);
    }
    recorder.prompt.set(ref);
    try {
      return call.call();
    } finally {
      if (outer == null) {
        recorder.prompt.remove();
      } else {
        recorder.prompt.set(outer);
      }
    }
  }

  /** {@link #withPrompt(ResolvedPrompt, UserCall)} for work that returns nothing. */
  public void withPrompt(ResolvedPrompt prompt, Runnable run) {
    withPrompt(prompt, () -> {
      run.run();
      return null;
    });
  }

  /**
   * Runs a dataset through an experiment's variants and returns the completed run, as
   * {@code GET /v1/offline-runs/{run_id}} serves it: the server scores the outputs and compares
   * each variant with the baseline. Needs the org's secret key.
   *
   * <p>The task runs once per (item, variant, repeat), at most
   * {@link Evaluation.Builder#concurrency concurrency} at once, on threads of the evaluation.
   * Model calls it makes on its own thread through {@code interceptModelCall} (or an
   * integration built on it, such as the LangChain4j listener) get the evaluated variant, are
   * measured (latency, tokens, cost, model) into that task's result and are sent as no event.
   * What the task throws becomes the result's {@code error}. Results are uploaded in batches
   * as tasks finish, with the client's retries. On a terminal a progress line is redrawn on
   * stderr.
   *
   * <p>Unlike {@code assign}, this call throws: {@link ArbiterException} for a publishable
   * key (before any request), a request the API refuses (with its reason), an API that stays
   * unreachable, or an interrupt of the calling thread. An interrupt lets the tasks already
   * started finish and uploads their results first; {@link Evaluation.Builder#runId runId}
   * then resumes the run, running only what it lacks.
   *
   * @throws ArbiterException as above
   */
  public OfflineRun evaluate(Evaluation evaluation) {
    if (evaluation == null) throw new IllegalArgumentException("evaluate: evaluation is null");
    if (publishableKey) {
      throw new ArbiterException("Arbiter evaluate needs the org's secret key (svc_sk_...): "
          + "this client has a publishable key (svc_pk_...), which the API refuses for "
          + "datasets and offline runs.");
    }
    return new EvaluationRunner(new EvaluationApi(transport), recorder, logger, evaluation).run();
  }

  /** Sends everything queued so far (or spills it); the future never completes exceptionally. */
  public CompletableFuture<Void> flush() {
    try {
      return worker.flush();
    } catch (RuntimeException e) {
      warnOnce("flush", "flush failed: " + e);
      return CompletableFuture.completedFuture(null);
    }
  }

  /**
   * Stops polling and delivers what is queued, waiting at most
   * {@link Builder#closeTimeout(Duration) closeTimeout}; what the
   * API has not taken by then goes to the offline store. Events tracked afterwards are dropped.
   * Idempotent; never throws.
   */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) return;
    // The calls made before close() are its to deliver.
    if (batches != null) batches.close();
    stamper.close();
    try {
      worker.close(closeTimeoutMs);
    } catch (RuntimeException e) {
      logger.error("close failed: " + e);
    }
  }

  public ArbiterStats stats() {
    if (batches != null) batches.decideAll();
    return new ArbiterStats(queue.size(), pipeline.sent.get(),
        queue.dropped() + pipeline.dropped.get() + stamper.droppedAfterClose(),
        pipeline.spilled.get(), pipeline.replayed.get(), pipeline.expired.get());
  }

  private CompiledExperiment.Variant variantConfig(String experiment, String variant) {
    if (variant == null) return null;
    CompiledExperiment entry = store.lookup(experiment);
    return entry == null ? null : entry.variants.get(variant);
  }

  private boolean prefetched() {
    if (!store.loaded()) return false;
    List<String> missing = new ArrayList<>();
    for (String name : prefetch) {
      if (store.lookup(name) == null) missing.add(name);
    }
    if (!missing.isEmpty()) {
      logger.warn("ready(): not in the config: " + String.join(", ", missing));
    }
    return missing.isEmpty();
  }

  /**
   * Whether the user passes the experiment's holdouts, layer and targeting, in that order. A
   * tallied experiment counts a user the targeting excludes here, on the first check of the day;
   * {@code assign} counts the others once past it. With exposures on, a matched, enrolled user's
   * tally is looked up only when the exposure is new: every exposure in the table has the user's
   * tally beside it (recorded just after it), so the steady state costs no lookup more than
   * exposures alone.
   */
  private boolean enters(CompiledExperiment entry, String user, Map<String, ?> attributes) {
    if (entry.gate != null && !passes(entry.gate, user, trackExposures, attributes)) {
      return false;
    }
    if (entry.admits(attributes)) {
      if (entry.covers(user)) return true;
      // Matched, then left out by the coverage: the targeting's tally counts a match.
      if (entry.targeted && tallies != null) {
        tallies.reached(entry, entry.bucketer.hashOf(user), user, true, day.dayTime());
      }
      return false;
    }
    if (tallies != null) {
      tallies.reached(entry, entry.bucketer.hashOf(user), user, false, day.dayTime());
    }
    return false;
  }

  /**
   * The variant of a recorded model call: the holdouts reached record their exposures, and the
   * check of a targeting is counted as {@code assign}'s is.
   */
  private String recordedVariantOf(CompiledExperiment entry, String user,
      Map<String, ?> attributes) {
    if (entry.status != CompiledExperiment.Status.RUNNING) {
      return concludedVariantOf(entry, user, true, attributes);
    }
    if (entry.gate != null && !passes(entry.gate, user, true, attributes)) return null;
    if (!entry.targeted || tallies == null) return entry.variantOf(user, attributes);
    boolean matched = entry.admits(attributes);
    int hash = entry.bucketer.hashOf(user);
    int range = matched && entry.covers(user) ? entry.rangeOf(hash) : -1;
    tallies.reached(entry, hash, user, matched, day.dayTime());
    return range < 0 ? null : entry.owner(range);
  }

  /**
   * The variant of a user in an experiment that does not run (docs/wire-format.md): a draft
   * gives null and records nothing, not even a holdout's exposure; a stopped one decides
   * eligibility as it did while it ran (the holdouts, recorded when {@code record}, then the
   * layer and the targeting) and gives every eligible user the served variant, whatever the
   * bucket. Its own exposure and targeting tally are never sent: nothing after the stop is
   * analysed.
   */
  private String concludedVariantOf(CompiledExperiment entry, String user, boolean record,
      Map<String, ?> attributes) {
    if (entry.status == CompiledExperiment.Status.DRAFT) return null;
    if (entry.gate != null && !passes(entry.gate, user, record, attributes)) return null;
    return entry.admits(attributes) ? entry.served : null;
  }

  /**
   * Whether the user passes an experiment's holdouts and layer. Each holdout reached, in the
   * experiment's order, is recorded (when {@code record}) with an exposure to the holdout itself,
   * once a day; the first that holds the user out ends it
   * (docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting).
   */
  private boolean passes(ExperimentGate gate, String user, boolean record,
      Map<String, ?> attributes) {
    for (CompiledHoldout holdout : gate.holdouts) {
      int hash = holdout.bucketer.hashOf(user);
      boolean held = holdout.holds(hash);
      if (record && holdout.exposed.firstToday(holdout.fingerprint(hash, user, held),
          day.dayTime()) && EventValidation.isWireUserId(user)) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("experiment_id", holdout.id);
        fields.put("user_id", user);
        fields.put("variant", held ? CompiledHoldout.HELD_OUT : CompiledHoldout.GENERAL);
        enqueueRecorded(EventType.EXPOSURE, withAttributes(fields, attributes));
      }
      if (held) return false;
    }
    return gate.inLayer(user);
  }

  /**
   * Queues the user's exposure unless it was sent today (the table decides races too); true
   * when the table had not seen it today.
   */
  private boolean exposeOnce(CompiledExperiment entry, String user, int hash, int range,
      Map<String, ?> attributes) {
    if (!entry.exposed.firstToday(entry.fingerprint(hash, user, range), day.dayTime())) {
      return false;
    }
    // An id the API would refuse is remembered too, so that its later calls stop here.
    if (!EventValidation.isWireUserId(user)) return true;
    enqueueRecorded(EventType.EXPOSURE, withAttributes(exposureOf(entry, user, range), attributes));
    return true;
  }

  /**
   * A batched call, decided as {@link #exposeOnce} decides one (without attributes). The call
   * has answered already: a failure here warns and leaves the rest of its batch to be decided.
   */
  private void decideExposure(CompiledExperiment entry, String user, int range, long fingerprint,
      long dayTime, long latestStamp) {
    try {
      if (entry.exposed.firstToday(fingerprint, dayTime) && EventValidation.isWireUserId(user)) {
        enqueueChecked(EventType.EXPOSURE, exposureOf(entry, user, range), latestStamp);
      }
    } catch (RuntimeException e) {
      warnOnce("exposure", "exposure not queued: " + e);
    }
  }

  private static Map<String, Object> exposureOf(CompiledExperiment entry, String user,
      int range) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("experiment_id", entry.id);
    fields.put("user_id", user);
    fields.put("variant", entry.owner(range));
    return fields;
  }

  /**
   * An exposure's fields, with the call's attributes as {@code metadata.attributes} when
   * {@link Builder#exposureAttributes(boolean)} is on and some were passed. Attributes the API
   * would refuse are left out (one warning); the exposure is sent all the same.
   */
  private Map<String, Object> withAttributes(Map<String, Object> fields,
      Map<String, ?> attributes) {
    if (!exposureAttributes || attributes == null) return fields;
    ExposureAttributes found = ExposureAttributes.of(attributes);
    if (found.metadata != null) {
      fields.put("metadata", found.metadata);
    } else {
      warnOnce("exposure-attributes", "exposure sent without its attributes: " + found.problem);
    }
    return fields;
  }

  /** Exposures and model calls made for the caller: one the API would refuse is not queued. */
  private void enqueueRecorded(EventType type, Map<String, Object> fields) {
    // The calling thread's batched exposures go first: a conversion never precedes its exposure.
    if (batches != null) batches.decideMine();
    enqueueChecked(type, fields, Long.MAX_VALUE);
  }

  private void enqueueChecked(EventType type, Map<String, Object> fields, long latestStamp) {
    String problem = EventValidation.problem(type, fields);
    if (problem != null) {
      logger.warn(type.wireName() + " not recorded: " + problem);
      return;
    }
    stamper.enqueue(type, fields, latestStamp);
  }

  void warnOnce(String key, String message) {
    if (warned.add(key)) logger.warn(message);
  }

  /**
   * Options of the client; every one has a default (see {@link ArbiterDefaults} and the
   * README). Only {@link #build()} can throw, and only when there is no API key or the base URL
   * is malformed.
   */
  public static final class Builder {
    private static final Duration DEFAULT_POLL_INTERVAL =
        Duration.ofMillis(ArbiterDefaults.CONFIG_POLL_INTERVAL_MS);
    private static final Duration DEFAULT_FLUSH_INTERVAL =
        Duration.ofMillis(ArbiterDefaults.FLUSH_INTERVAL_MS);
    private static final Duration DEFAULT_RETRY_BASE_DELAY =
        Duration.ofMillis(ArbiterDefaults.RETRY_BASE_DELAY_MS);
    private static final Duration DEFAULT_RETRY_MAX_DELAY =
        Duration.ofMillis(ArbiterDefaults.RETRY_MAX_DELAY_MS);
    private static final Duration DEFAULT_RETRY_AFTER_CAP =
        Duration.ofMillis(ArbiterDefaults.RETRY_AFTER_CAP_MS);
    private static final Duration DEFAULT_REQUEST_TIMEOUT =
        Duration.ofMillis(ArbiterDefaults.REQUEST_TIMEOUT_MS);
    private static final Duration DEFAULT_CLOSE_TIMEOUT =
        Duration.ofMillis(ArbiterDefaults.CLOSE_TIMEOUT_MS);

    private String apiKey;
    private String baseUrl;
    private final List<String> experiments = new ArrayList<>();
    private Path offlineStorePath;
    private boolean trackExposures = true;
    /** Null until set: it follows {@link #trackExposures}. */
    private Boolean trackTargetingTallies;
    private boolean exposureAttributes = false;
    private boolean recordModelText = true;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private Duration flushInterval = DEFAULT_FLUSH_INTERVAL;
    private int batchSize = ArbiterDefaults.EVENT_BATCH_SIZE;
    private int queueCapacity = ArbiterDefaults.EVENT_QUEUE_CAPACITY;
    private int exposureDedupCapacity = ArbiterDefaults.EXPOSURE_DEDUP_CAPACITY;
    private int exposureBatchFromSlots = ExposureBatches.DEFAULT_FROM_SLOTS;
    private LongSupplier clock;
    private int maxAttempts = ArbiterDefaults.MAX_ATTEMPTS;
    private Duration retryBaseDelay = DEFAULT_RETRY_BASE_DELAY;
    private Duration retryMaxDelay = DEFAULT_RETRY_MAX_DELAY;
    private Duration retryAfterCap = DEFAULT_RETRY_AFTER_CAP;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private ArbiterLogger logger;
    private HttpClient httpClient;
    private Function<String, String> environment = System::getenv;
    private boolean sendFullBatches = true;

    private Builder() {}

    /** Publishable ({@code svc_pk_…}) or secret key. Default: {@code ARBITER_API_KEY}. */
    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey;
      return this;
    }

    /** API address. Default: {@code ARBITER_BASE_URL}, else {@value ArbiterDefaults#DEFAULT_BASE_URL}. */
    public Builder baseUrl(String baseUrl) {
      this.baseUrl = baseUrl;
      return this;
    }

    /** Experiment names (or ids) that {@link Arbiter#ready()} waits for. The whole config is fetched either way. */
    public Builder experiments(String... experiments) {
      return experiments(List.of(experiments));
    }

    public Builder experiments(Collection<String> experiments) {
      this.experiments.clear();
      this.experiments.addAll(experiments);
      return this;
    }

    /** A file (NDJSON) for events the API could not take, replayed within 24 h. One client per file. Default: none. */
    public Builder offlineStorePath(Path path) {
      this.offlineStorePath = path;
      return this;
    }

    public Builder offlineStorePath(String path) {
      return offlineStorePath(path == null || path.isEmpty() ? null : Path.of(path));
    }

    /** Whether assign/getPrompt/getVariables queue one exposure per user, experiment and UTC day. Default true. */
    public Builder trackExposures(boolean trackExposures) {
      this.trackExposures = trackExposures;
      return this;
    }

    /**
     * Whether the client counts, per experiment with targeting and UTC day, the distinct users
     * whose check reached the targeting (past holdouts and layer) and matched it or not, and
     * sends the two counts (no user id) with each flush to {@code POST /v1/targeting-tallies},
     * so the results page can show the share of users the targeting excluded: an excluded user
     * sends no exposure, so the server would never learn of them. Default: the value given to
     * {@link #trackExposures(boolean)} (a caller who turns exposures off keeps no per-user
     * memory at all unless it asks for tallies). Best effort: counts the API cannot take now
     * are kept (up to 10,000 experiment-days) and sent with the next flush; refused ones are
     * dropped with a warning. A user counts once a day per process, from the exposure table
     * ({@link #exposureDedupCapacity(int)}); past it the table forgets everyone and a user may
     * count again. Only with the secret key ({@code svc_sk_}), the one the route takes: with
     * another key tallies are off, and {@code true} logs one warning when the client is built.
     */
    public Builder trackTargetingTallies(boolean trackTargetingTallies) {
      this.trackTargetingTallies = trackTargetingTallies;
      return this;
    }

    /** Whether the client tallies: as set, else as {@code trackExposures}. */
    boolean targetingTallied() {
      return trackTargetingTallies != null ? trackTargetingTallies : trackExposures;
    }

    /**
     * Whether each exposure carries the attributes its call passed as
     * {@code metadata.attributes}. Default false: attributes never leave the process. The first
     * exposure of the day carries the first call's attributes; {@code model_call} events never
     * carry them. Attributes that are not JSON or break the metadata limit (32 levels, 64 KiB)
     * are left out with one warning, and the exposure is sent without them.
     */
    public Builder exposureAttributes(boolean exposureAttributes) {
      this.exposureAttributes = exposureAttributes;
      return this;
    }

    /** Whether model calls keep the prompt and response text their results expose. Default true. */
    public Builder recordModelText(boolean recordModelText) {
      this.recordModelText = recordModelText;
      return this;
    }

    /**
     * Config polling interval. Null means the default, 60 s
     * ({@link ArbiterDefaults#CONFIG_POLL_INTERVAL_MS}).
     */
    public Builder pollInterval(Duration interval) {
      this.pollInterval = orDefault(interval, DEFAULT_POLL_INTERVAL);
      return this;
    }

    /**
     * The same in milliseconds.
     *
     * @deprecated Use {@link #pollInterval(Duration)}; this form goes in 0.3.0.
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder pollIntervalMs(long ms) {
      return pollInterval(Duration.ofMillis(ms));
    }

    /**
     * Background flush interval; doubles (to 60 s) while the API is down. Null means the
     * default, 5 s ({@link ArbiterDefaults#FLUSH_INTERVAL_MS}).
     */
    public Builder flushInterval(Duration interval) {
      this.flushInterval = orDefault(interval, DEFAULT_FLUSH_INTERVAL);
      return this;
    }

    /**
     * The same in milliseconds.
     *
     * @deprecated Use {@link #flushInterval(Duration)}; this form goes in 0.3.0.
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder flushIntervalMs(long ms) {
      return flushInterval(Duration.ofMillis(ms));
    }

    /** Events per request, at most 1,000. Default {@value ArbiterDefaults#EVENT_BATCH_SIZE}. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /**
     * Events held in memory; beyond it exposures are dropped first (a model call or business
     * event takes the oldest queued exposure's place), and every drop is counted. Default
     * {@value ArbiterDefaults#EVENT_QUEUE_CAPACITY}.
     */
    public Builder queueCapacity(int capacity) {
      this.queueCapacity = capacity;
      return this;
    }

    /**
     * Users (fingerprints of user and variant) remembered per experiment and UTC day so that
     * {@code assign} sends one exposure each; past it in one day the experiment's table is
     * cleared and starts again. 8 bytes a slot, at most 4/3 of a slot a user (10.7 MiB at the
     * default). At least 1, at most 2^30. Default
     * {@value ArbiterDefaults#EXPOSURE_DEDUP_CAPACITY}.
     */
    public Builder exposureDedupCapacity(int capacity) {
      this.exposureDedupCapacity = capacity;
      return this;
    }

    /** Attempts per request, the first included. Default {@value ArbiterDefaults#MAX_ATTEMPTS}. */
    public Builder maxAttempts(int attempts) {
      this.maxAttempts = attempts;
      return this;
    }

    /**
     * First retry delay; doubles per attempt, minus up to 25 % jitter. Null means the default,
     * 500 ms ({@link ArbiterDefaults#RETRY_BASE_DELAY_MS}).
     */
    public Builder retryBaseDelay(Duration delay) {
      this.retryBaseDelay = orDefault(delay, DEFAULT_RETRY_BASE_DELAY);
      return this;
    }

    /**
     * The same in milliseconds.
     *
     * @deprecated Use {@link #retryBaseDelay(Duration)}; this form goes in 0.3.0.
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder retryBaseDelayMs(long ms) {
      return retryBaseDelay(Duration.ofMillis(ms));
    }

    /**
     * Cap of the retry delay. Null means the default, 8 s
     * ({@link ArbiterDefaults#RETRY_MAX_DELAY_MS}).
     */
    public Builder retryMaxDelay(Duration delay) {
      this.retryMaxDelay = orDefault(delay, DEFAULT_RETRY_MAX_DELAY);
      return this;
    }

    /**
     * The same in milliseconds.
     *
     * @deprecated Use {@link #retryMaxDelay(Duration)}; this form goes in 0.3.0.
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder retryMaxDelayMs(long ms) {
      return retryMaxDelay(Duration.ofMillis(ms));
    }

    /**
     * A server's {@code Retry-After} is honoured up to this. Null means the default, 30 s
     * ({@link ArbiterDefaults#RETRY_AFTER_CAP_MS}).
     */
    public Builder retryAfterCap(Duration cap) {
      this.retryAfterCap = orDefault(cap, DEFAULT_RETRY_AFTER_CAP);
      return this;
    }

    /**
     * The same in milliseconds.
     *
     * @deprecated Use {@link #retryAfterCap(Duration)}; this form goes in 0.3.0.
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder retryAfterCapMs(long ms) {
      return retryAfterCap(Duration.ofMillis(ms));
    }

    /**
     * Timeout of one request, connection included. Null means the default, 10 s
     * ({@link ArbiterDefaults#REQUEST_TIMEOUT_MS}).
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = orDefault(timeout, DEFAULT_REQUEST_TIMEOUT);
      return this;
    }

    /**
     * The same in milliseconds.
     *
     * @deprecated Use {@link #requestTimeout(Duration)}; this form goes in 0.3.0.
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder requestTimeoutMs(long ms) {
      return requestTimeout(Duration.ofMillis(ms));
    }

    /**
     * How long {@link Arbiter#close()} waits for the queue before spilling the rest. Null means
     * the default, 10 s ({@link ArbiterDefaults#CLOSE_TIMEOUT_MS}).
     */
    public Builder closeTimeout(Duration timeout) {
      this.closeTimeout = orDefault(timeout, DEFAULT_CLOSE_TIMEOUT);
      return this;
    }

    /**
     * The same in milliseconds.
     *
     * @deprecated Use {@link #closeTimeout(Duration)}; this form goes in 0.3.0.
     */
    @Deprecated(since = "0.2.0", forRemoval = true)
    public Builder closeTimeoutMs(long ms) {
      return closeTimeout(Duration.ofMillis(ms));
    }

    /** Where warnings go. Default: {@link ArbiterLogger#system()}. */
    public Builder logger(ArbiterLogger logger) {
      this.logger = logger;
      return this;
    }

    /** The HttpClient to use (proxies, TLS settings). Default: a new one per client. */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = httpClient;
      return this;
    }

    /**
     * Tests: false leaves every send to flush() and the interval, so that a burst of track()
     * calls is not split by a drain that a full batch started on the other thread.
     */
    Builder sendFullBatches(boolean send) {
      this.sendFullBatches = send;
      return this;
    }

    /** Tests: the table size (slots) from which exposure checks are batched; 0 batches all. */
    Builder exposureBatchFromSlots(int slots) {
      this.exposureBatchFromSlots = slots;
      return this;
    }

    /** Tests: the wall clock (epoch ms) that exposures' UTC day and events' timestamps read. */
    Builder clock(LongSupplier clock) {
      this.clock = clock;
      return this;
    }

    /** Tests: where ARBITER_API_KEY and ARBITER_BASE_URL are read. */
    Builder environment(Function<String, String> environment) {
      this.environment = environment;
      return this;
    }

    /** Starts the client: the config load and the background flush begin at once. */
    public Arbiter build() {
      String key = nonEmpty(apiKey) ? apiKey : environment.apply("ARBITER_API_KEY");
      if (!nonEmpty(key)) {
        throw new ArbiterException(
            "Arbiter: no API key. Call Arbiter.builder().apiKey(..) or set ARBITER_API_KEY.");
      }
      String url = nonEmpty(baseUrl) ? baseUrl : environment.apply("ARBITER_BASE_URL");
      if (!nonEmpty(url)) url = ArbiterDefaults.DEFAULT_BASE_URL;
      try {
        URI uri = URI.create(url);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
          throw new IllegalArgumentException("scheme must be http or https");
        }
      } catch (IllegalArgumentException e) {
        throw new ArbiterException("Arbiter: malformed base URL " + url + ": " + e.getMessage());
      }
      return new Arbiter(this, key, url);
    }

    /** Whole milliseconds, saturated: a duration too long for a long never throws. */
    static long millis(Duration d) {
      try {
        return d.toMillis();
      } catch (ArithmeticException e) {
        return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
      }
    }

    /**
     * Every duration option takes null as "the default", so that a caller can pass an unset
     * value through without knowing the default.
     */
    private static Duration orDefault(Duration value, Duration byDefault) {
      return value == null ? byDefault : value;
    }

    private static boolean nonEmpty(String s) {
      return s != null && !s.isEmpty();
    }
  }
}

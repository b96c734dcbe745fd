package dev.arbiter.openfeature;

import dev.arbiter.client.Arbiter;
import dev.arbiter.client.EventType;
import dev.arbiter.client.FlagHooks;
import dev.openfeature.sdk.ErrorCode;
import dev.openfeature.sdk.EvaluationContext;
import dev.openfeature.sdk.EventProvider;
import dev.openfeature.sdk.ImmutableMetadata;
import dev.openfeature.sdk.Metadata;
import dev.openfeature.sdk.ProviderEvaluation;
import dev.openfeature.sdk.ProviderEventDetails;
import dev.openfeature.sdk.Reason;
import dev.openfeature.sdk.TrackingEventDetails;
import dev.openfeature.sdk.Value;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The OpenFeature provider of an {@link Arbiter}: flags resolve locally from the client's polled
 * config, the first evaluation of a user a day sends its exposure (through {@code assign}), and
 * {@code track} sends a business event. A flag key is an experiment's name or id
 * ({@code EXPERIMENT}: the variant key as a string, its variables as an object) or
 * {@code EXPERIMENT:VARIABLE} (one variable's value). The context's targeting key is the user
 * id; its other attributes are what targeting reads.
 */
public final class ArbiterProvider extends EventProvider {
  private static final Metadata METADATA = () -> "arbiter";

  private final Arbiter client;
  private final FlagHooks hooks;
  private final boolean closeClient;
  private final long readyTimeoutMs;
  private final Object lock = new Object();
  private Runnable stopWatching;
  private String state = "ready";
  private long version = -1;

  /** A provider that closes {@code client} (flushing it) when the SDK shuts it down. */
  public ArbiterProvider(Arbiter client) {
    this(client, true, 30_000);
  }

  /**
   * {@code closeClient}: whether shutdown closes the client; {@code readyTimeoutMs}: how long
   * initialization waits for the first config load.
   */
  public ArbiterProvider(Arbiter client, boolean closeClient, long readyTimeoutMs) {
    this.client = Objects.requireNonNull(client, "client");
    this.hooks = FlagHooks.of(client);
    this.closeClient = closeClient;
    this.readyTimeoutMs = readyTimeoutMs;
  }

  @Override
  public Metadata getMetadata() {
    return METADATA;
  }

  /**
   * Waits for the first config load; throws (the provider's ERROR state) when it failed. Polls
   * go on: a later load makes the provider READY.
   */
  @Override
  public void initialize(EvaluationContext evaluationContext) throws Exception {
    try {
      client.ready().get(readyTimeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // Told apart below: whether the config is loaded.
    }
    synchronized (lock) {
      state = hooks.loaded() ? "ready" : "error";
      version = hooks.version();
      if (stopWatching == null) stopWatching = hooks.onPoll(this::polled);
    }
    if (!hooks.loaded()) throw new IllegalStateException("the Arbiter config could not be loaded");
  }

  /** Stops watching the config and, unless told not to, closes the client: it flushes. */
  @Override
  public void shutdown() {
    synchronized (lock) {
      if (stopWatching != null) stopWatching.run();
      stopWatching = null;
    }
    if (closeClient) client.close();
    super.shutdown();
  }

  /**
   * READY when a config loads after none could be (or the API answers after STALE);
   * CONFIGURATION_CHANGED when another version is installed; STALE when a poll fails with a
   * config loaded; ERROR when it fails with none. Once per change of state.
   */
  private void polled(String outcome) {
    boolean ready = false;
    boolean changed = false;
    String failed = null;
    synchronized (lock) {
      boolean loaded = hooks.loaded();
      if ("failed".equals(outcome)) {
        String next = loaded ? "stale" : "error";
        if (!next.equals(state)) failed = state = next;
      } else if (loaded) {
        ready = !"ready".equals(state);
        state = "ready";
        long now = hooks.version();
        changed = now != version && version != -1;
        version = now;
      }
    }
    ProviderEventDetails details = ProviderEventDetails.builder()
        .message(failed == null ? null : "the Arbiter API cannot be reached").build();
    if ("stale".equals(failed)) emitProviderStale(details);
    if ("error".equals(failed)) emitProviderError(details);
    if (ready) emitProviderReady(details);
    if (changed) emitProviderConfigurationChanged(details);
  }

  @Override
  public ProviderEvaluation<Boolean> getBooleanEvaluation(String key, Boolean defaultValue,
      EvaluationContext ctx) {
    return resolve(key, Kind.BOOLEAN, defaultValue, ctx, v -> (Boolean) v);
  }

  @Override
  public ProviderEvaluation<String> getStringEvaluation(String key, String defaultValue,
      EvaluationContext ctx) {
    return resolve(key, Kind.STRING, defaultValue, ctx, v -> (String) v);
  }

  @Override
  public ProviderEvaluation<Integer> getIntegerEvaluation(String key, Integer defaultValue,
      EvaluationContext ctx) {
    return resolve(key, Kind.INTEGER, defaultValue, ctx, v -> ((Number) v).intValue());
  }

  @Override
  public ProviderEvaluation<Double> getDoubleEvaluation(String key, Double defaultValue,
      EvaluationContext ctx) {
    return resolve(key, Kind.DOUBLE, defaultValue, ctx, v -> ((Number) v).doubleValue());
  }

  @Override
  public ProviderEvaluation<Value> getObjectEvaluation(String key, Value defaultValue,
      EvaluationContext ctx) {
    return resolve(key, Kind.OBJECT, defaultValue, ctx, Value::objectToValue);
  }

  /**
   * A business event named {@code name} for the context's user, in the experiment of the
   * details' {@code experiment} attribute (name or id), with the details' value; the other
   * attributes go in its metadata. Without a user or an experiment: dropped, one warning.
   */
  @Override
  public void track(String name, EvaluationContext ctx, TrackingEventDetails details) {
    String user = ctx == null ? null : ctx.getTargetingKey();
    Map<String, Object> attributes = details == null ? new HashMap<>()
        : new HashMap<>(details.asObjectMap());
    Object experiment = attributes.remove("experiment");
    if (user == null || user.isEmpty() || !(experiment instanceof String)) {
      hooks.warnOnce("openfeature-track", "track(" + name
          + "): needs the context's targeting key and the details' experiment, event dropped");
      return;
    }
    Map<String, Object> fields = new HashMap<>();
    fields.put("experiment_id", experiment);
    fields.put("user_id", user);
    fields.put("business_metric", name);
    if (details != null) details.getValue().ifPresent(v -> fields.put("value", v.doubleValue()));
    if (!attributes.isEmpty()) fields.put("metadata", plain(attributes));
    client.track(EventType.BUSINESS_EVENT, fields);
  }

  private <T> ProviderEvaluation<T> resolve(String key, Kind kind, T defaultValue,
      EvaluationContext ctx, Function<Object, T> convert) {
    if (!hooks.loaded()) {
      return failed(defaultValue, ErrorCode.PROVIDER_NOT_READY, "the Arbiter config is not loaded yet");
    }
    int colon = key.indexOf(':');
    String variable = colon < 0 ? null : key.substring(colon + 1);
    FlagHooks.Experiment experiment = hooks.experiment(colon < 0 ? key : key.substring(0, colon));
    if (experiment == null) {
      return failed(defaultValue, ErrorCode.FLAG_NOT_FOUND, "no experiment " + key + " in the config");
    }
    if (variable == null && kind != Kind.STRING && kind != Kind.OBJECT) {
      return failed(defaultValue, ErrorCode.TYPE_MISMATCH,
          key + " is a string (the variant key) or an object (its variables)");
    }
    ImmutableMetadata metadata = ImmutableMetadata.builder()
        .addString("experimentId", experiment.id()).addLong("configVersion", hooks.version())
        .build();
    if ("draft".equals(experiment.status())) {
      return answer(defaultValue, null, Reason.DISABLED, metadata);
    }
    String user = ctx == null ? null : ctx.getTargetingKey();
    if (user == null || user.isEmpty()) {
      return failed(defaultValue, ErrorCode.TARGETING_KEY_MISSING,
          "the context has no targeting key (the user id)");
    }
    String variant = client.assign(experiment.id(), user, attributesOf(ctx));
    if (variant == null) return answer(defaultValue, null, Reason.DEFAULT, metadata);
    Reason reason = "stopped".equals(experiment.status()) ? Reason.STATIC : Reason.SPLIT;
    Map<String, Object> variables = experiment.variables(variant);
    if (variable == null) {
      Object value = kind == Kind.STRING ? variant : variables;
      return answer(convert.apply(value), variant, reason, metadata);
    }
    if (!variables.containsKey(variable)) return answer(defaultValue, variant, Reason.DEFAULT, metadata);
    Object value = variables.get(variable);
    if (!kind.accepts(value)) {
      return ProviderEvaluation.<T>builder().value(defaultValue).variant(variant)
          .reason(Reason.ERROR.toString()).errorCode(ErrorCode.TYPE_MISMATCH)
          .errorMessage(key + " is not of the type asked for").flagMetadata(metadata).build();
    }
    return answer(convert.apply(value), variant, reason, metadata);
  }

  /** The targeting attributes of a context: every field but the targeting key, as plain values. */
  private static Map<String, Object> attributesOf(EvaluationContext ctx) {
    Map<String, Object> attributes = plain(ctx.asObjectMap());
    attributes.remove("targetingKey");
    return attributes;
  }

  /** Instants as ISO strings (the wire has no date type), nested maps and lists alike. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> plain(Map<String, Object> map) {
    Map<String, Object> out = new HashMap<>();
    for (Map.Entry<String, Object> e : map.entrySet()) {
      Object v = e.getValue();
      if (v instanceof Instant) v = v.toString();
      else if (v instanceof Map) v = plain((Map<String, Object>) v);
      out.put(e.getKey(), v);
    }
    return out;
  }

  private static <T> ProviderEvaluation<T> answer(T value, String variant, Reason reason,
      ImmutableMetadata metadata) {
    return ProviderEvaluation.<T>builder().value(value).variant(variant).reason(reason.toString())
        .flagMetadata(metadata).build();
  }

  private static <T> ProviderEvaluation<T> failed(T value, ErrorCode code, String message) {
    return ProviderEvaluation.<T>builder().value(value).reason(Reason.ERROR.toString())
        .errorCode(code).errorMessage(message).build();
  }

  /** The type an OpenFeature client asked for, and which config values have it. */
  private enum Kind {
    BOOLEAN, STRING, INTEGER, DOUBLE, OBJECT;

    boolean accepts(Object value) {
      switch (this) {
        case BOOLEAN:
          return value instanceof Boolean;
        case STRING:
          return value instanceof String;
        case INTEGER:
          return value instanceof Long || value instanceof Integer;
        case DOUBLE:
          return value instanceof Number;
        default:
          return value instanceof Map || value instanceof java.util.List;
      }
    }
  }
}

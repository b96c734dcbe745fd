package dev.arbiter.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Turns one model call into an {@code exposure} (when it starts) and a {@code model_call}
 * (when it ends). A call outside the experiment (user not enrolled, experiment unknown, a draft
 * or stopped experiment) runs unrecorded. Recording never changes what the caller gets back, exceptions included.
 */
final class ModelCallRecorder {
  private final ConfigStore store;
  private final boolean recordText;
  private final BiConsumer<EventType, Map<String, Object>> enqueue;
  private final Arbiter.WarnOnce warnOnce;
  /** The user's variant, the holdouts reached recorded and the targeting's check counted. */
  private final RecordedVariant recordedVariant;
  /** An exposure's fields with the call's attributes, when the client sends them. */
  private final ExposureFields exposureFields;

  /**
   * The variant of a user in an experiment, or null, decided as {@code assign} decides it: the
   * holdouts reached record exposures with the attributes, a targeting's check is tallied.
   */
  @FunctionalInterface
  interface RecordedVariant {
    String of(CompiledExperiment entry, String user, Map<String, ?> attributes);
  }

  /** The exposure's fields, given the call's attributes (which it may add as metadata). */
  @FunctionalInterface
  interface ExposureFields {
    Map<String, Object> apply(Map<String, Object> fields, Map<String, ?> attributes);
  }
  /**
   * The evaluation task running on this thread, whose model calls are measured for its result
   * and sent as no event. A ThreadLocal of this client, as the withUser scope is.
   */
  private final ThreadLocal<TaskMeasure> task = new ThreadLocal<>();
  /**
   * The stored prompt of the enclosing {@code withPrompt} on this thread: its model calls carry
   * {@code metadata.prompt_name} and {@code prompt_version} (docs/wire-format.md#prompts-on-model-calls).
   */
  final ThreadLocal<Map<String, Object>> prompt = new ThreadLocal<>();

  ModelCallRecorder(ConfigStore store, boolean recordText,
      BiConsumer<EventType, Map<String, Object>> enqueue, Arbiter.WarnOnce warnOnce,
      RecordedVariant recordedVariant, ExposureFields exposureFields) {
    this.store = store;
    this.recordText = recordText;
    this.enqueue = enqueue;
    this.warnOnce = warnOnce;
    this.recordedVariant = recordedVariant;
    this.exposureFields = exposureFields;
  }

  /** Whether an evaluation task runs on this thread. */
  boolean measuring() {
    return task.get() != null;
  }

  /** Runs an evaluation task with its model calls measured into {@code measure}. */
  Object measuring(TaskMeasure measure, Evaluation.Task run, Evaluation.TaskInput input)
      throws Exception {
    TaskMeasure outer = task.get();
    task.set(measure);
    try {
      return run.run(input);
    } finally {
      if (outer == null) {
        task.remove();
      } else {
        task.set(outer);
      }
    }
  }

  <T> T intercept(String experiment, String user, Map<String, ?> attributes,
      Function<String, T> call) {
    TaskMeasure measure = task.get();
    if (measure != null) return measure.measure(experiment, call);
    Map<String, Object> base = null;
    String variant = null;
    try {
      CompiledExperiment entry = store.lookup(experiment);
      // The order of assign: holdouts, layer, then targeting and the bucket.
      variant = entry == null || user == null ? null
          : recordedVariant.of(entry, user, attributes);
      base = begin(experiment, user, entry, variant, attributes);
      // After the exposure went: only the model_call carries the prompt.
      if (base != null && prompt.get() != null) base.put("metadata", prompt.get());
    } catch (RuntimeException e) {
      warnOnce.warn("model-call", "model call not recorded: " + e);
    }
    if (base == null) return call.apply(variant);
    long started = System.nanoTime();
    T result;
    try {
      result = call.apply(variant);
    } catch (RuntimeException | Error e) {
      finish(base, started, null, e);
      throw e;
    }
    if (result instanceof CompletionStage) {
      // An async SDK call: the latency runs until its answer arrives.
      Map<String, Object> fields = base;
      ((CompletionStage<?>) result).whenComplete((value, err) -> finish(fields, started, value,
          err == null ? null : unwrap(err)));
    } else {
      finish(base, started, result, null);
    }
    return result;
  }

  /**
   * Records the exposure and returns the fields both events share, or null when the call is
   * not part of the experiment. Without a config yet, the server works the variant out itself.
   */
  private Map<String, Object> begin(String experiment, String user, CompiledExperiment entry,
      String variant, Map<String, ?> attributes) {
    if (experiment == null || !EventValidation.isWireUserId(user)) return null;
    if (entry == null && store.loaded()) {
      warnOnce.warn("unknown:" + experiment, "experiment " + experiment + " is not in the config");
      return null;
    }
    // A draft or stopped experiment measures nothing: its calls run unrecorded, with the variant
    // it serves (the holdouts reached have recorded their exposures all the same).
    if (entry != null && (variant == null || entry.status != CompiledExperiment.Status.RUNNING)) {
      return null;
    }
    Map<String, Object> base = new LinkedHashMap<>();
    base.put("experiment_id", entry != null ? entry.id : experiment);
    base.put("user_id", user);
    Map<String, Object> exposure = new LinkedHashMap<>(base);
    if (variant != null) exposure.put("variant", variant);
    // The model_call that follows (from base) carries no attributes, whatever the option says.
    enqueue.accept(EventType.EXPOSURE, exposureFields.apply(exposure, attributes));
    return base;
  }

  private void finish(Map<String, Object> base, long startedNanos, Object result, Throwable err) {
    try {
      double latencyMs = Math.round((System.nanoTime() - startedNanos) / 1_000.0) / 1_000.0;
      ModelCallReader.Measure m = ModelCallReader.read(result, recordText);
      Map<String, Object> event = new LinkedHashMap<>(base);
      event.put("latency_ms", Math.max(0, latencyMs));
      event.put("error", err == null ? null : storable(ModelCallReader.describeError(err)));
      if (m.model != null && m.model.length() <= EventValidation.MAX_LENGTH.get("model")) {
        event.put("model", storable(m.model));
      }
      if (m.inputTokens != null) event.put("input_tokens", m.inputTokens);
      if (m.outputTokens != null) event.put("output_tokens", m.outputTokens);
      // A part goes only with its total and within it: the server refuses it otherwise.
      if (m.cachedInputTokens != null && m.inputTokens != null && m.cachedInputTokens <= m.inputTokens) {
        event.put("cached_input_tokens", m.cachedInputTokens);
      }
      if (m.reasoningTokens != null && m.outputTokens != null && m.reasoningTokens <= m.outputTokens) {
        event.put("reasoning_tokens", m.reasoningTokens);
      }
      if (m.cost != null) event.put("cost_usd", m.cost);
      if (recordText && m.prompt != null) event.put("prompt", storable(m.prompt));
      if (recordText && m.response != null) event.put("response", storable(m.response));
      event.values().removeIf(v -> v == Removed.FIELD);
      enqueue.accept(EventType.MODEL_CALL, event);
    } catch (RuntimeException e) {
      warnOnce.warn("model-call", "model call not recorded: " + e);
    }
  }

  /** Model text the server could not store (NUL, lone surrogates) is left out, not the event. */
  private Object storable(String text) {
    if (EventValidation.textProblem(text) == null) return text;
    warnOnce.warn("model-text", "model call text the API cannot store was left out of the event");
    return Removed.FIELD;
  }

  private enum Removed { FIELD }

  private static Throwable unwrap(Throwable err) {
    return (err instanceof java.util.concurrent.CompletionException && err.getCause() != null)
        ? err.getCause() : err;
  }
}

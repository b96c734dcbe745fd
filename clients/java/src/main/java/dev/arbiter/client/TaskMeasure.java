package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The model calls one evaluation task makes through the client (interceptModelCall and the
 * integrations built on it), measured for that task's result instead of being sent as events.
 * Calls are kept in the order they started, so "the first call's model" does not depend on
 * which answer came back first. A call still running when the result is built is left out.
 */
final class TaskMeasure {
  /** One call; null fields were not reported (or the call has not finished). */
  private static final class Call {
    boolean finished;
    double latencyMs;
    String model;
    Long inputTokens;
    Long outputTokens;
    Double cost;
  }

  private final String experimentId;
  private final String experimentName;
  private final String variant;
  private final List<Call> calls = new ArrayList<>();

  TaskMeasure(String experimentId, String experimentName, String variant) {
    this.experimentId = experimentId;
    this.experimentName = experimentName;
    this.variant = variant;
  }

  /**
   * Runs one model call with the evaluated variant (null for another experiment's call: the
   * evaluation forces only its own) and measures it. What the call returns or throws is the
   * caller's, unchanged.
   */
  <T> T measure(String experiment, Function<String, T> call) {
    boolean ours = experimentId.equals(experiment) || experimentName.equals(experiment);
    Call slot = new Call();
    synchronized (this) {
      calls.add(slot);
    }
    long started = System.nanoTime();
    T result;
    try {
      result = call.apply(ours ? variant : null);
    } catch (RuntimeException | Error e) {
      finish(slot, started, null);
      throw e;
    }
    if (result instanceof CompletionStage) {
      ((CompletionStage<?>) result).whenComplete((value, err) -> finish(slot, started,
          err == null ? value : null));
    } else {
      finish(slot, started, result);
    }
    return result;
  }

  private void finish(Call slot, long startedNanos, Object result) {
    double latency = Math.max(0, Math.round((System.nanoTime() - startedNanos) / 1_000.0) / 1_000.0);
    ModelCallReader.Measure m = ModelCallReader.read(result, false);
    synchronized (this) {
      slot.latencyMs = latency;
      slot.model = m.model;
      slot.inputTokens = m.inputTokens;
      slot.outputTokens = m.outputTokens;
      slot.cost = m.cost;
      slot.finished = true;
    }
  }

  /**
   * Puts the measurements into a result row: the sums of the calls' latencies, tokens and
   * costs, the first call's model; {@code taskMs} (the task's own wall time) when it made no
   * call. Sums of what no call reported are left out.
   */
  synchronized void into(Map<String, Object> row, double taskMs) {
    double latency = 0;
    long input = 0;
    long output = 0;
    double cost = 0;
    boolean anyCall = false;
    boolean anyInput = false;
    boolean anyOutput = false;
    boolean anyCost = false;
    String model = null;
    for (Call c : calls) {
      if (!c.finished) continue;
      anyCall = true;
      latency += c.latencyMs;
      if (model == null && c.model != null) model = c.model;
      if (c.inputTokens != null) {
        input += c.inputTokens;
        anyInput = true;
      }
      if (c.outputTokens != null) {
        output += c.outputTokens;
        anyOutput = true;
      }
      if (c.cost != null) {
        cost += c.cost;
        anyCost = true;
      }
    }
    row.put("latency_ms", anyCall ? latency : taskMs);
    if (anyInput) row.put("input_tokens", input);
    if (anyOutput) row.put("output_tokens", output);
    if (anyCost) row.put("cost", cost);
    if (model != null && model.length() <= EventValidation.MAX_LENGTH.get("model")
        && EventValidation.textProblem(model) == null) {
      row.put("model", model);
    }
  }
}

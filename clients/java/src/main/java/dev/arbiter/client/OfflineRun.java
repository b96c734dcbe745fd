package dev.arbiter.client;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * An offline run as {@code GET /v1/offline-runs/{run_id}} serves it: what
 * {@link Arbiter#evaluate(Evaluation)} returns. The accessors read the common fields;
 * {@link #toMap()} is the whole document (values as the JSON holds them: String, Long, Double,
 * Boolean, null, List, Map).
 */
public final class OfflineRun {
  private final Map<String, Object> fields;

  OfflineRun(Map<String, Object> fields) {
    this.fields = Collections.unmodifiableMap(fields);
  }

  public String id() {
    return (String) fields.get("id");
  }

  /** {@code running}, {@code scoring}, {@code complete} or {@code failed}. */
  public String status() {
    return (String) fields.get("status");
  }

  /** Why scoring failed, or null. */
  public String failureReason() {
    return (String) fields.get("failure_reason");
  }

  public String experimentId() {
    return (String) fields.get("experiment_id");
  }

  public long experimentVersion() {
    return number("experiment_version");
  }

  public String datasetId() {
    return (String) fields.get("dataset_id");
  }

  public long datasetVersion() {
    return number("dataset_version");
  }

  /** The variants run, the baseline first. */
  @SuppressWarnings("unchecked")
  public List<String> variants() {
    return (List<String>) fields.get("variants");
  }

  public String baseline() {
    return (String) fields.get("baseline");
  }

  public long repeats() {
    return number("repeats");
  }

  /** Items × variants × repeats. */
  public long expectedResults() {
    return number("expected_results");
  }

  public long receivedResults() {
    return number("received_results");
  }

  /** {@code expected_results}, {@code missing_results}, {@code failed_results}...; null until complete. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> coverage() {
    return (Map<String, Object>) fields.get("coverage");
  }

  /** Keyed {@code <scorer>::<treatment>}; null until complete. */
  @SuppressWarnings("unchecked")
  public Map<String, Map<String, Object>> comparisons() {
    return (Map<String, Map<String, Object>>) fields.get("comparisons");
  }

  /** Non-determinism keyed {@code <scorer>::<variant>}; null until complete. */
  @SuppressWarnings("unchecked")
  public Map<String, Map<String, Object>> summary() {
    return (Map<String, Map<String, Object>>) fields.get("summary");
  }

  /** Per treatment, {@code {passed, reasons}}; null until complete. */
  @SuppressWarnings("unchecked")
  public Map<String, Map<String, Object>> gates() {
    return (Map<String, Map<String, Object>>) fields.get("gates");
  }

  /** True when the run is complete and every treatment's gate passed: what a CI job checks. */
  public boolean gatesPassed() {
    Map<String, Map<String, Object>> gates = gates();
    if (!"complete".equals(status()) || gates == null) return false;
    for (Map<String, Object> gate : gates.values()) {
      if (!Boolean.TRUE.equals(gate.get("passed"))) return false;
    }
    return true;
  }

  /** The whole run as served. */
  public Map<String, Object> toMap() {
    return fields;
  }

  private long number(String field) {
    Object value = fields.get(field);
    return value instanceof Number ? ((Number) value).longValue() : 0;
  }

  @Override
  public String toString() {
    return "OfflineRun{id=" + id() + ", status=" + status() + ", received="
        + fields.get("received_results") + "/" + fields.get("expected_results") + "}";
  }
}

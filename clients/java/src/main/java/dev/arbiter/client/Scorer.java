package dev.arbiter.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A scorer of an offline run, for {@link Evaluation.Builder#scorers}. Built-in scorers run on
 * the server when the run completes; {@link #custom(String, ScoreFunction)} runs in the client.
 * Instances are immutable: {@link #direction}, {@link #nonInferiorityMargin},
 * {@link #caseSensitive} and {@link #tolerance} return a changed copy.
 *
 * <pre>{@code
 * Scorer.exactMatch("exact").caseSensitive(false)
 * Scorer.numericClose("close", 0.01)
 * Scorer.custom("polite", s -> s.output().toString().contains("please") ? 1 : 0)
 * Scorer.measured("latency_ms").nonInferiorityMargin(50)
 * }</pre>
 */
public final class Scorer {
  /** Which way is better. */
  public enum Direction {
    INCREASE("increase"),
    DECREASE("decrease");

    private final String wireName;

    Direction(String wireName) {
      this.wireName = wireName;
    }

    /** The name the API uses. */
    public String wireName() {
      return wireName;
    }
  }

  /** What a custom scorer's function receives: the item, the variant, the task's output. */
  public static final class Input {
    private final Map<String, Object> item;
    private final String variant;
    private final Object output;
    private final int repeat;

    Input(Map<String, Object> item, String variant, Object output, int repeat) {
      this.item = item;
      this.variant = variant;
      this.output = output;
      this.repeat = repeat;
    }

    /** The dataset item as {@code GET /v1/datasets/{id}/items} serves it. */
    public Map<String, Object> item() {
      return item;
    }

    /** The item's {@code expected_output}, or null when it has none. */
    public Object expectedOutput() {
      return item.get("expected_output");
    }

    public String variant() {
      return variant;
    }

    /** What the task returned (a String, or a JSON value: Map, List, Number, Boolean). */
    public Object output() {
      return output;
    }

    /** From 0. */
    public int repeat() {
      return repeat;
    }
  }

  /**
   * A custom scorer's function. A function that throws or returns a non-finite number gives
   * that result no value for the scorer.
   */
  @FunctionalInterface
  public interface ScoreFunction {
    double score(Input input) throws Exception;
  }

  private final Map<String, Object> fields;
  private final ScoreFunction function;

  private Scorer(Map<String, Object> fields, ScoreFunction function) {
    this.fields = Collections.unmodifiableMap(fields);
    this.function = function;
  }

  /**
   * A scorer of any kind the API takes ({@code exact_match}, {@code contains},
   * {@code json_valid}, {@code levenshtein}, {@code numeric_close}, {@code custom} and the
   * measured {@code latency_ms}, {@code total_tokens}, {@code cost}, {@code error_rate}); the
   * named factories below cover them. The server checks the kind and the fields.
   */
  public static Scorer of(String name, String kind) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("name", name);
    fields.put("kind", kind);
    return new Scorer(fields, null);
  }

  /** 1 when the trimmed output equals the trimmed expected output, else 0. */
  public static Scorer exactMatch(String name) {
    return of(name, "exact_match");
  }

  /** 1 when the expected output is a substring of the output, else 0. */
  public static Scorer contains(String name) {
    return of(name, "contains");
  }

  /** 1 when the output is JSON, else 0. */
  public static Scorer jsonValid(String name) {
    return of(name, "json_valid");
  }

  /** 1 − edit distance ÷ the longer length, in code points. */
  public static Scorer levenshtein(String name) {
    return of(name, "levenshtein");
  }

  /** 1 when |output − expected| ≤ {@code tolerance}, else 0. */
  public static Scorer numericClose(String name, double tolerance) {
    return of(name, "numeric_close").with("tolerance", tolerance);
  }

  /**
   * A measured scorer ({@code latency_ms}, {@code total_tokens}, {@code cost},
   * {@code error_rate}), listed only to set its direction or margin: the run carries each one
   * its results measure either way.
   */
  public static Scorer measured(String kind) {
    return of(kind, kind);
  }

  /**
   * A scorer computed in the client by {@code function} after each task that succeeds; the
   * server receives only {@code {name, kind: "custom"}} and the values.
   */
  public static Scorer custom(String name, ScoreFunction function) {
    if (function == null) throw new IllegalArgumentException("Scorer.custom: function is null");
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("name", name);
    fields.put("kind", "custom");
    return new Scorer(fields, function);
  }

  public Scorer direction(Direction direction) {
    return with("direction", direction == null ? null : direction.wireName());
  }

  /** The margin m in the scorer's units: non-inferior when ci_low > −m (or ci_high < m). */
  public Scorer nonInferiorityMargin(double margin) {
    return with("non_inferiority_margin", margin);
  }

  /** {@code exact_match} only; default true. */
  public Scorer caseSensitive(boolean caseSensitive) {
    return with("case_sensitive", caseSensitive);
  }

  /** {@code numeric_close} only. */
  public Scorer tolerance(double tolerance) {
    return with("tolerance", tolerance);
  }

  public String name() {
    return (String) fields.get("name");
  }

  public String kind() {
    return (String) fields.get("kind");
  }

  /** The scorer as the API takes it ({@code name}, {@code kind}, and the fields set). */
  public Map<String, Object> toMap() {
    return fields;
  }

  ScoreFunction function() {
    return function;
  }

  private Scorer with(String field, Object value) {
    Map<String, Object> copy = new LinkedHashMap<>(fields);
    if (value == null) {
      copy.remove(field);
    } else {
      copy.put(field, value);
    }
    return new Scorer(copy, function);
  }

  @Override
  public String toString() {
    return "Scorer" + fields + (function != null ? " (computed in the client)" : "");
  }
}

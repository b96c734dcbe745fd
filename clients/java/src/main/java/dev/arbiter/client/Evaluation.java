package dev.arbiter.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What {@link Arbiter#evaluate(Evaluation)} runs: a dataset through an experiment's variants,
 * {@code repeats} times, with {@code task} producing each output. From {@link #builder()}.
 *
 * <pre>{@code
 * OfflineRun run = arbiter.evaluate(Evaluation.builder()
 *     .experiment("checkout-prompt")
 *     .dataset("checkout-questions")
 *     .task(in -> chat(in.prompt(), in.item().get("input")))
 *     .scorers(Scorer.exactMatch("exact"))
 *     .repeats(3)
 *     .build());
 * }</pre>
 */
public final class Evaluation {
  /**
   * Produces one output: a String or a JSON value (Map, List, Number, Boolean, null). What it
   * throws is recorded as the result's {@code error} and does not stop the evaluation. Runs on
   * one of the evaluation's threads, {@code concurrency} at once.
   */
  @FunctionalInterface
  public interface Task {
    Object run(TaskInput input) throws Exception;
  }

  /** What the task receives for one (item, variant, repeat). */
  public static final class TaskInput {
    private final Map<String, Object> item;
    private final String variant;
    private final String prompt;
    private final Map<String, Object> variables;
    private final int repeat;

    TaskInput(Map<String, Object> item, String variant, String prompt,
        Map<String, Object> variables, int repeat) {
      this.item = item;
      this.variant = variant;
      this.prompt = prompt;
      this.variables = variables;
      this.repeat = repeat;
    }

    /**
     * The dataset item as {@code GET /v1/datasets/{id}/items} serves it: {@code id},
     * {@code input}, {@code expected_output}, {@code variables}, {@code metadata},
     * {@code group}. Read-only: the item's tasks share it.
     */
    public Map<String, Object> item() {
      return item;
    }

    /** The item's {@code input}: a String, or a Map for a JSON object. */
    public Object input() {
      return item.get("input");
    }

    /** The variant this output is for. */
    public String variant() {
      return variant;
    }

    /** The variant's prompt text, or null when it has none. */
    public String prompt() {
      return prompt;
    }

    /**
     * The variant's variables with the item's {@code variables} merged over them: a new map per
     * task.
     */
    public Map<String, Object> variables() {
      return variables;
    }

    /** From 0. */
    public int repeat() {
      return repeat;
    }
  }

  /** How far the evaluation is: results made by this call, of those it has to make. */
  public static final class Progress {
    private final long done;
    private final long total;

    Progress(long done, long total) {
      this.done = done;
      this.total = total;
    }

    public long done() {
      return done;
    }

    public long total() {
      return total;
    }

    @Override
    public String toString() {
      return done + "/" + total;
    }
  }

  final String experiment;
  final String dataset;
  final Task task;
  final List<Scorer> scorers;
  final int repeats;
  final int concurrency;
  final List<String> variants;
  final String runId;
  final Integer datasetVersion;
  final String note;
  final Consumer<Progress> onProgress;

  private Evaluation(Builder b) {
    this.experiment = b.experiment;
    this.dataset = b.dataset;
    this.task = b.task;
    this.scorers = List.copyOf(b.scorers);
    this.repeats = b.repeats;
    this.concurrency = Math.max(1, b.concurrency);
    this.variants = b.variants == null ? null : List.copyOf(b.variants);
    this.runId = b.runId;
    this.datasetVersion = b.datasetVersion;
    this.note = b.note;
    this.onProgress = b.onProgress;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Options of an evaluation. {@code task} is required, and {@code experiment} with
   * {@code dataset} unless {@code runId} resumes a run; {@link #build()} throws
   * {@link IllegalStateException} without them, as {@code HttpRequest.Builder.build()} does
   * without a URI.
   */
  public static final class Builder {
    private String experiment;
    private String dataset;
    private Task task;
    private final List<Scorer> scorers = new ArrayList<>();
    private int repeats = 1;
    private int concurrency = ArbiterDefaults.EVALUATION_CONCURRENCY;
    private List<String> variants;
    private String runId;
    private Integer datasetVersion;
    private String note;
    private Consumer<Progress> onProgress;

    private Builder() {}

    /** The experiment, by name or id. */
    public Builder experiment(String experiment) {
      this.experiment = experiment;
      return this;
    }

    /** The dataset, by name or id. */
    public Builder dataset(String dataset) {
      this.dataset = dataset;
      return this;
    }

    public Builder task(Task task) {
      this.task = task;
      return this;
    }

    public Builder scorers(Scorer... scorers) {
      return scorers(List.of(scorers));
    }

    /** The run's scorers; a new run only (a resumed run keeps its own). */
    public Builder scorers(List<Scorer> scorers) {
      this.scorers.clear();
      this.scorers.addAll(scorers);
      return this;
    }

    /** Runs of each item by each variant, 1–10. Default 1. */
    public Builder repeats(int repeats) {
      this.repeats = repeats;
      return this;
    }

    /**
     * Tasks running at once, at least 1. Default
     * {@value ArbiterDefaults#EVALUATION_CONCURRENCY}.
     */
    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    public Builder variants(String... variants) {
      return variants(List.of(variants));
    }

    /**
     * The variants to run; they must include the baseline (the first allocation slice's).
     * Default: every variant of the experiment's current version.
     */
    public Builder variants(List<String> variants) {
      this.variants = variants == null ? null : new ArrayList<>(variants);
      return this;
    }

    /**
     * Resumes this run: only the (item, variant, repeat) it lacks are run. A run that is no
     * longer running is returned as it is.
     */
    public Builder runId(String runId) {
      this.runId = runId;
      return this;
    }

    /** The dataset version to run; null (the default) means the latest. */
    public Builder datasetVersion(Integer datasetVersion) {
      this.datasetVersion = datasetVersion;
      return this;
    }

    public Builder note(String note) {
      this.note = note;
      return this;
    }

    /**
     * Called after each result with how far the evaluation is, on the evaluation's threads,
     * one call at a time. An exception it throws is logged once and ignored.
     */
    public Builder onProgress(Consumer<Progress> onProgress) {
      this.onProgress = onProgress;
      return this;
    }

    public Evaluation build() {
      if (task == null) throw new IllegalStateException("Evaluation: task is required");
      if (runId == null && (experiment == null || dataset == null)) {
        throw new IllegalStateException(
            "Evaluation: experiment and dataset are required, unless runId resumes a run");
      }
      return new Evaluation(this);
    }
  }

  @Override
  public String toString() {
    return "Evaluation{" + (runId != null ? "runId=" + runId
        : "experiment=" + experiment + ", dataset=" + dataset) + ", repeats=" + repeats
        + ", concurrency=" + concurrency + ", scorers=" + Collections.unmodifiableList(scorers)
        + "}";
  }
}

package dev.arbiter.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@code evaluate} call: creates (or reads) the run, reads the pinned prompts from a fresh
 * config, runs every (item, variant, repeat) the run lacks through the task, at most
 * {@code concurrency} at once, uploads the results and completes the run.
 */
final class EvaluationRunner {
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final int ITEMS_PAGE = 1_000;
  private static final int RUN_ITEMS_PAGE = 500;
  /** A run still {@code scoring} is read again this often. */
  private static final long SCORING_POLL_MS = 1_000;

  private final EvaluationApi api;
  private final ModelCallRecorder recorder;
  private final ArbiterLogger logger;
  private final Evaluation evaluation;
  private final int number = RUNS.incrementAndGet();

  EvaluationRunner(EvaluationApi api, ModelCallRecorder recorder, ArbiterLogger logger,
      Evaluation evaluation) {
    this.api = api;
    this.recorder = recorder;
    this.logger = logger;
    this.evaluation = evaluation;
  }

  /** The prompt and variables of one variant in the pinned experiment version. */
  private static final class VariantConfig {
    final String prompt;
    final Map<String, Object> variables;

    VariantConfig(String prompt, Map<String, Object> variables) {
      this.prompt = prompt;
      this.variables = variables;
    }
  }

  OfflineRun run() {
    Map<String, Object> run = evaluation.runId == null ? create()
        : api.get("/v1/offline-runs/" + EvaluationApi.segment(evaluation.runId));
    String runId = (String) run.get("id");
    if (!"running".equals(run.get("status"))) return new OfflineRun(run);
    Map<?, ?> experiment = pinnedExperiment(run);
    Map<String, VariantConfig> variants = variantConfigs(experiment);
    Set<String> held = evaluation.runId == null ? Set.of() : heldResults(runId);
    long total = number(run.get("expected_results")) - held.size();
    String label = evaluation.experiment != null ? evaluation.experiment
        : String.valueOf(experiment.get("name"));
    Batch batch = new Batch(runId, (String) experiment.get("id"),
        (String) experiment.get("name"), customScorers(run), total, label);
    boolean interrupted = batch.runAll(run, variants, held);
    batch.progress.finish();
    RuntimeException failed = batch.uploader.failure();
    if (failed != null) throw failed;
    if (interrupted) {
      Thread.currentThread().interrupt();
      throw new ArbiterException("Arbiter evaluate: interrupted after " + batch.done + " of "
          + total + " results; the run continues with runId(\"" + runId + "\")");
    }
    return new OfflineRun(untilScored(runId, api.post("/v1/offline-runs/" + EvaluationApi.segment(runId)
        + "/complete", null)));
  }

  /**
   * The run once it has left {@code scoring}: a judge scorer, or a run too large to score within
   * the answer, is finished by the server in the background, and read here every second.
   */
  private Map<String, Object> untilScored(String runId, Map<String, Object> completed) {
    Map<String, Object> run = completed;
    long deadline = System.nanoTime() + ArbiterDefaults.EVALUATION_SCORING_WAIT_MS * 1_000_000L;
    while ("scoring".equals(run.get("status"))) {
      if (System.nanoTime() - deadline > 0) {
        throw new ArbiterException("Arbiter evaluate: run " + runId + " is still scoring after "
            + ArbiterDefaults.EVALUATION_SCORING_WAIT_MS / 1_000 + " s; read it later with GET"
            + " /v1/offline-runs/" + runId);
      }
      try {
        Thread.sleep(SCORING_POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ArbiterException("Arbiter evaluate: interrupted while run " + runId
            + " was scoring; read it later with GET /v1/offline-runs/" + runId);
      }
      run = api.get("/v1/offline-runs/" + EvaluationApi.segment(runId));
    }
    return run;
  }

  private Map<String, Object> create() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("dataset_id", evaluation.dataset);
    if (evaluation.datasetVersion != null) body.put("dataset_version", evaluation.datasetVersion);
    if (evaluation.variants != null) body.put("variants", evaluation.variants);
    body.put("repeats", evaluation.repeats);
    List<Map<String, Object>> scorers = new ArrayList<>();
    for (Scorer s : evaluation.scorers) scorers.add(s.toMap());
    if (!scorers.isEmpty()) body.put("scorers", scorers);
    if (evaluation.note != null) body.put("note", evaluation.note);
    return api.post("/v1/experiments/" + EvaluationApi.segment(evaluation.experiment)
        + "/offline-runs", body);
  }

  /**
   * The experiment in a config read now: its variants must be those of the version the run
   * pinned, or the tasks would get other prompts than the run stands for.
   */
  private Map<?, ?> pinnedExperiment(Map<String, Object> run) {
    Map<String, Object> config = api.get("/v1/config");
    Object id = run.get("experiment_id");
    Object experiments = config.get("experiments");
    if (experiments instanceof List) {
      for (Object e : (List<?>) experiments) {
        if (!(e instanceof Map) || !id.equals(((Map<?, ?>) e).get("id"))) continue;
        Map<?, ?> experiment = (Map<?, ?>) e;
        long configVersion = number(experiment.get("version"));
        long pinned = number(run.get("experiment_version"));
        if (configVersion != pinned) {
          throw new ArbiterException("Arbiter evaluate: run " + run.get("id")
              + " pinned version " + pinned + " of experiment " + experiment.get("name")
              + ", but the config serves version " + configVersion
              + "; its prompts are gone, so the run cannot be continued: start a new one");
        }
        return experiment;
      }
    }
    throw new ArbiterException("Arbiter evaluate: experiment " + id + " of run " + run.get("id")
        + " is not in the config");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, VariantConfig> variantConfigs(Map<?, ?> experiment) {
    Map<String, VariantConfig> out = new LinkedHashMap<>();
    for (Object v : (List<?>) experiment.get("variants")) {
      if (!(v instanceof Map)) continue;
      Map<?, ?> variant = (Map<?, ?>) v;
      Object prompt = variant.get("prompt");
      Object variables = variant.get("variables");
      out.put((String) variant.get("key"), new VariantConfig(
          prompt instanceof String ? (String) prompt : null,
          variables instanceof Map ? (Map<String, Object>) variables : Map.of()));
    }
    return out;
  }

  /** The (item, variant, repeat) the run already holds, from its items view in id order. */
  private Set<String> heldResults(String runId) {
    Set<String> held = new HashSet<>();
    String after = null;
    while (true) {
      Map<String, Object> page = api.get("/v1/offline-runs/" + EvaluationApi.segment(runId)
          + "/items?sort=item&limit=" + RUN_ITEMS_PAGE
          + (after == null ? "" : "&starting_after=" + EvaluationApi.segment(after)));
      List<?> data = (List<?>) page.get("data");
      for (Object raw : data) {
        Map<?, ?> item = (Map<?, ?>) raw;
        after = (String) item.get("id");
        for (Map.Entry<?, ?> v : ((Map<?, ?>) item.get("variants")).entrySet()) {
          for (Object r : (List<?>) v.getValue()) {
            held.add(key(after, (String) v.getKey(), (int) number(((Map<?, ?>) r).get("repeat"))));
          }
        }
      }
      if (!Boolean.TRUE.equals(page.get("has_more")) || data.isEmpty()) return held;
    }
  }

  /** The run's custom scorers that this evaluation computes, by name. */
  private Map<String, Scorer.ScoreFunction> customScorers(Map<String, Object> run) {
    Set<String> custom = new HashSet<>();
    for (Object s : (List<?>) run.get("scorers")) {
      Map<?, ?> scorer = (Map<?, ?>) s;
      if ("custom".equals(scorer.get("kind"))) custom.add((String) scorer.get("name"));
    }
    Map<String, Scorer.ScoreFunction> out = new LinkedHashMap<>();
    for (Scorer s : evaluation.scorers) {
      if (s.function() != null && custom.contains(s.name())) out.put(s.name(), s.function());
    }
    return out;
  }

  private static String key(String item, String variant, int repeat) {
    return variant + '\u0000' + repeat + '\u0000' + item;
  }

  private static long number(Object value) {
    return value instanceof Number ? ((Number) value).longValue() : 0;
  }

  /** The tasks of one call, their threads, uploads and progress. */
  private final class Batch {
    final String runId;
    final String experimentId;
    final String experimentName;
    final Map<String, Scorer.ScoreFunction> scoreFunctions;
    final long total;
    final ResultUploader uploader;
    final ProgressLine progress;
    long done;
    private boolean progressFailed;

    Batch(String runId, String experimentId, String experimentName,
        Map<String, Scorer.ScoreFunction> scoreFunctions, long total, String label) {
      this.runId = runId;
      this.experimentId = experimentId;
      this.experimentName = experimentName;
      this.scoreFunctions = scoreFunctions;
      this.total = total;
      this.uploader = new ResultUploader(api, runId, logger, number);
      this.progress = new ProgressLine(ProgressLine.terminalStderr(), label);
    }

    /**
     * Runs every missing triple, item by item, then variant, then repeat; true when the caller's
     * thread was interrupted, after the tasks already started have finished and their results
     * are uploaded (a resumed run does not run them again).
     */
    @SuppressWarnings("unchecked")
    boolean runAll(Map<String, Object> run, Map<String, VariantConfig> configs, Set<String> held) {
      int concurrency = evaluation.concurrency;
      Semaphore slots = new Semaphore(concurrency);
      AtomicInteger threads = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
        Thread t = new Thread(r, "arbiter-evaluate-" + number + "-" + threads.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      List<String> variants = (List<String>) run.get("variants");
      int repeats = (int) number(run.get("repeats"));
      String itemsPath = "/v1/datasets/" + EvaluationApi.segment((String) run.get("dataset_id"))
          + "/items?version=" + number(run.get("dataset_version")) + "&limit=" + ITEMS_PAGE;
      boolean interrupted = false;
      RuntimeException failed = null;
      try {
        String after = null;
        pages:
        while (true) {
          Map<String, Object> page = api.get(itemsPath
              + (after == null ? "" : "&starting_after=" + EvaluationApi.segment(after)));
          List<?> data = (List<?>) page.get("data");
          for (Object raw : data) {
            // Shared by the item's tasks on several threads: read-only for them.
            Map<String, Object> item = Collections.unmodifiableMap((Map<String, Object>) raw);
            after = (String) item.get("id");
            for (String variant : variants) {
              for (int repeat = 0; repeat < repeats; repeat++) {
                if (held.contains(key(after, variant, repeat))) continue;
                if (uploader.failure() != null) break pages;
                slots.acquire();
                VariantConfig config = configs.getOrDefault(variant,
                    new VariantConfig(null, Map.of()));
                int r = repeat;
                pool.execute(() -> {
                  try {
                    runOne(item, variant, config, r);
                  } finally {
                    slots.release();
                  }
                });
              }
            }
          }
          if (!Boolean.TRUE.equals(page.get("has_more")) || data.isEmpty()) break;
        }
      } catch (InterruptedException | EvaluationApi.Interrupted e) {
        interrupted = true;
      } catch (RuntimeException e) {
        failed = e;
      }
      // The tasks already started finish, and their results are uploaded, whatever happened.
      Thread.interrupted();
      slots.acquireUninterruptibly(concurrency);
      pool.shutdown();
      uploader.finish();
      if (failed != null) throw failed;
      return interrupted;
    }

    @SuppressWarnings("unchecked")
    private void runOne(Map<String, Object> item, String variant, VariantConfig config,
        int repeat) {
      Map<String, Object> variables = new LinkedHashMap<>(config.variables);
      Object itemVariables = item.get("variables");
      if (itemVariables instanceof Map) variables.putAll((Map<String, Object>) itemVariables);
      Evaluation.TaskInput input = new Evaluation.TaskInput(item, variant, config.prompt,
          variables, repeat);
      TaskMeasure measure = new TaskMeasure(experimentId, experimentName, variant);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("item_id", item.get("id"));
      row.put("variant", variant);
      row.put("repeat", repeat);
      long started = System.nanoTime();
      Object output = null;
      String error = null;
      try {
        output = recorder.measuring(measure, evaluation.task, input);
        if (output != null) JsonWriter.write(output);
      } catch (VirtualMachineError e) {
        throw e;
      } catch (Throwable e) {
        error = errorText(e);
        output = null;
      }
      double taskMs = Math.round((System.nanoTime() - started) / 1_000.0) / 1_000.0;
      if (output != null) row.put("output", output);
      if (error != null) row.put("error", error);
      measure.into(row, taskMs);
      if (error == null) {
        Map<String, Object> scores = scores(item, variant, output, repeat);
        if (!scores.isEmpty()) row.put("scores", scores);
      }
      uploader.add(row);
      advance();
    }

    private Map<String, Object> scores(Map<String, Object> item, String variant, Object output,
        int repeat) {
      Map<String, Object> scores = new LinkedHashMap<>();
      Scorer.Input input = new Scorer.Input(item, variant, output, repeat);
      for (Map.Entry<String, Scorer.ScoreFunction> f : scoreFunctions.entrySet()) {
        try {
          double value = f.getValue().score(input);
          if (Double.isFinite(value)) scores.put(f.getKey(), value);
        } catch (Exception | LinkageError | AssertionError noValue) {
          // A scorer that throws gives this result no value for it.
        }
      }
      return scores;
    }

    private synchronized void advance() {
      done++;
      progress.update(done, total);
      if (evaluation.onProgress == null) return;
      try {
        evaluation.onProgress.accept(new Evaluation.Progress(done, total));
      } catch (RuntimeException e) {
        if (!progressFailed) logger.warn("evaluate: onProgress threw, ignored: " + e);
        progressFailed = true;
      }
    }
  }

  /**
   * The task's exception as the result's {@code error}: its message (its class when it has
   * none), cut to {@link ArbiterDefaults#MAX_ERROR_LENGTH}, with text the API cannot store
   * replaced.
   */
  static String errorText(Throwable e) {
    String message = e.getMessage();
    if (message == null || message.isBlank()) message = e.getClass().getName();
    StringBuilder clean = new StringBuilder(message.length());
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      boolean lone = Character.isHighSurrogate(c)
          ? !(i + 1 < message.length() && Character.isLowSurrogate(message.charAt(i + 1)))
          : Character.isLowSurrogate(c) && !(i > 0 && Character.isHighSurrogate(message.charAt(i - 1)));
      clean.append(c == 0 || lone ? '\uFFFD' : c);
    }
    return ModelCallReader.cut(clean.toString(), ArbiterDefaults.MAX_ERROR_LENGTH, "…");
  }
}

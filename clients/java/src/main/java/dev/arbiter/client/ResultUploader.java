package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Uploads an evaluation's results in batches of up to {@value ArbiterDefaults#EVENT_BATCH_SIZE}
 * rows on a thread of its own, so tasks go on while a batch is in flight. When a few batches
 * are waiting the task thread that fills the next one uploads it itself, which keeps memory
 * bounded however slow the API is. Duplicates and conflicts are not errors (a resumed run may
 * resend a row); a row the API refuses is logged and stays missing from the run.
 */
final class ResultUploader {
  private static final int WAITING_BATCHES = 4;

  private final EvaluationApi api;
  private final String path;
  private final ArbiterLogger logger;
  private final ThreadPoolExecutor sender;
  private List<Map<String, Object>> pending = new ArrayList<>();
  /** The first upload that failed; the evaluation stops with it. */
  private volatile RuntimeException failure;

  ResultUploader(EvaluationApi api, String runId, ArbiterLogger logger, int number) {
    this.api = api;
    this.path = "/v1/offline-runs/" + EvaluationApi.segment(runId) + "/results";
    this.logger = logger;
    this.sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(WAITING_BATCHES), r -> {
          Thread t = new Thread(r, "arbiter-evaluate-upload-" + number);
          t.setDaemon(true);
          return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
  }

  RuntimeException failure() {
    return failure;
  }

  void add(Map<String, Object> row) {
    List<Map<String, Object>> full = null;
    synchronized (this) {
      pending.add(row);
      if (pending.size() >= ArbiterDefaults.EVENT_BATCH_SIZE) {
        full = pending;
        pending = new ArrayList<>();
      }
    }
    if (full != null) submit(full);
  }

  /** Uploads what is left and waits for every upload, ignoring interrupts (then restoring them). */
  void finish() {
    List<Map<String, Object>> rest;
    synchronized (this) {
      rest = pending;
      pending = new ArrayList<>();
    }
    if (!rest.isEmpty()) submit(rest);
    sender.shutdown();
    boolean interrupted = false;
    while (true) {
      try {
        if (sender.awaitTermination(1, TimeUnit.DAYS)) break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  private void submit(List<Map<String, Object>> batch) {
    sender.execute(() -> upload(batch));
  }

  private void upload(List<Map<String, Object>> batch) {
    if (failure != null) return;
    try {
      Map<String, Object> answer = api.post(path, Map.of("results", batch));
      Object errors = answer.get("errors");
      if (errors instanceof List) {
        for (Object e : (List<?>) errors) logRowError(batch, e);
      }
    } catch (RuntimeException e) {
      failure = e;
    }
  }

  private void logRowError(List<Map<String, Object>> batch, Object error) {
    if (!(error instanceof Map)) return;
    Object index = ((Map<?, ?>) error).get("index");
    Map<String, Object> row = index instanceof Long && (Long) index >= 0 && (Long) index < batch.size()
        ? batch.get((int) (long) (Long) index) : Map.of();
    logger.warn("evaluate: result not stored (item " + row.get("item_id") + ", variant "
        + row.get("variant") + ", repeat " + row.get("repeat") + "): "
        + ((Map<?, ?>) error).get("message"));
  }
}

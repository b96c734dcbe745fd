package dev.arbiter.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client's one daemon thread: config polls, background flushes, {@code flush()} and the
 * final drain of {@code close()} all run on it, one at a time, so the poller, the pipeline and
 * the offline store need no locks. Callers' threads only enqueue and schedule.
 */
final class BackgroundWorker {
  private static final AtomicInteger CLIENTS = new AtomicInteger();

  private final ScheduledExecutorService executor;
  private final ConfigPoller poller;
  private final EventPipeline pipeline;
  private final EventQueue queue;
  private final Transport transport;
  private final ArbiterLogger logger;
  private final long pollIntervalMs;
  private final int batchSize;
  private final AtomicBoolean drainPending = new AtomicBoolean();
  private final AtomicBoolean refreshPending = new AtomicBoolean();
  private final CompletableFuture<Void> firstLoad = new CompletableFuture<>();
  private volatile boolean closed;
  private volatile ScheduledFuture<?> pollTimer;
  private volatile ScheduledFuture<?> flushTimer;

  BackgroundWorker(ConfigPoller poller, EventPipeline pipeline, EventQueue queue,
      Transport transport, ArbiterLogger logger, long pollIntervalMs, int batchSize) {
    this.poller = poller;
    this.pipeline = pipeline;
    this.queue = queue;
    this.transport = transport;
    this.logger = logger;
    this.pollIntervalMs = Math.max(1, pollIntervalMs);
    this.batchSize = batchSize;
    int n = CLIENTS.incrementAndGet();
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, task -> {
      Thread t = new Thread(task, "arbiter-client-" + n);
      // A daemon never keeps the application alive; close() is what delivers the queue.
      t.setDaemon(true);
      return t;
    });
    pool.setRemoveOnCancelPolicy(true);
    pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.executor = pool;
  }

  /** Loads the config now, then polls and flushes on their intervals. */
  void start() {
    submit(() -> {
      try {
        refreshNow();
      } finally {
        firstLoad.complete(null);
      }
    });
    scheduleFlush();
  }

  /** Completes after the first config load attempt, whatever its outcome. */
  CompletableFuture<Void> firstLoad() {
    return firstLoad;
  }

  /** An ingest ack reported a newer config version: fetch now, once, whatever is pending. */
  void refreshSoon() {
    if (closed || !refreshPending.compareAndSet(false, true)) return;
    submit(() -> {
      refreshPending.set(false);
      refreshNow();
    });
  }

  /** Called after an enqueue; a full batch is sent without waiting for the interval. */
  void eventQueued() {
    if (closed || queue.size() < batchSize || !drainPending.compareAndSet(false, true)) return;
    submit(() -> {
      drainPending.set(false);
      pipeline.drain();
    });
  }

  /** Completes once everything queued before the call was sent, spilled or dropped. */
  CompletableFuture<Void> flush() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (!submit(() -> {
      try {
        pipeline.drain();
      } finally {
        done.complete(null);
      }
    })) {
      done.complete(null);
    }
    return done;
  }

  /**
   * Stops polling, delivers (or spills) what is queued within {@code timeoutMs}, and ends the
   * thread. Past the deadline no new attempt starts, so the rest goes to the offline store.
   */
  void close(long timeoutMs) {
    if (closed) return;
    closed = true;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    transport.giveUpAt(deadline);
    CompletableFuture<Void> last = flush();
    if (pollTimer != null) pollTimer.cancel(false);
    if (flushTimer != null) flushTimer.cancel(false);
    try {
      last.get(Math.max(0, timeoutMs) + 1_000, TimeUnit.MILLISECONDS);
    } catch (TimeoutException late) {
      logger.warn("close(): the queue was not delivered in " + timeoutMs + " ms; "
          + queue.size() + " events still queued are lost");
    } catch (Exception interrupted) {
      if (interrupted instanceof InterruptedException) Thread.currentThread().interrupt();
    }
    executor.shutdownNow();
  }

  private void refreshNow() {
    if (pollTimer != null) pollTimer.cancel(false);
    try {
      poller.fetchOnce();
    } catch (RuntimeException e) {
      logger.error("config poll failed: " + e);
    }
    if (!closed) pollTimer = schedule(this::refreshNow, pollIntervalMs);
  }

  private void scheduleFlush() {
    if (closed) return;
    flushTimer = schedule(() -> {
      try {
        pipeline.drain();
      } finally {
        scheduleFlush();
      }
    }, pipeline.intervalMs());
  }

  private ScheduledFuture<?> schedule(Runnable task, long delayMs) {
    try {
      return executor.schedule(guarded(task), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException shutDown) {
      return null;
    }
  }

  private boolean submit(Runnable task) {
    try {
      executor.execute(guarded(task));
      return true;
    } catch (RejectedExecutionException shutDown) {
      return false;
    }
  }

  /** An exception must not kill the thread's future runs: a scheduled task that throws is never run again. */
  private Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        logger.error("background task failed: " + e);
      }
    };
  }
}

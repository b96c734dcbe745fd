package dev.arbiter.client;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Gives an event its {@code event_id}, {@code type} and {@code timestamp} at the moment it is
 * tracked, and puts it on the queue; counts what arrives after {@code close()} and logs one
 * line per stretch of a full queue. Called from any thread.
 */
final class EventStamper {
  /** ISO 8601 UTC with milliseconds, the form JavaScript's toISOString writes. */
  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final EventQueue queue;
  private final ArbiterLogger logger;
  private final Arbiter.WarnOnce warnOnce;
  private final Runnable onQueued;
  private final LongSupplier clock;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong droppedAfterClose = new AtomicLong();
  /** One log line per stretch of drops from a full queue. */
  private volatile boolean overflowing;

  EventStamper(EventQueue queue, ArbiterLogger logger, Arbiter.WarnOnce warnOnce,
      Runnable onQueued, LongSupplier clock) {
    this.queue = queue;
    this.logger = logger;
    this.warnOnce = warnOnce;
    this.onQueued = onQueued;
    this.clock = clock;
  }

  /** From now on events are dropped and counted. */
  void close() {
    closed.set(true);
  }

  long droppedAfterClose() {
    return droppedAfterClose.get();
  }

  void enqueue(EventType type, Map<String, Object> fields) {
    enqueue(type, fields, Long.MAX_VALUE);
  }

  /** {@link #enqueue(EventType, Map)}, stamped no later than {@code latestMs}. */
  void enqueue(EventType type, Map<String, Object> fields, long latestMs) {
    if (closed.get()) {
      droppedAfterClose.incrementAndGet();
      warnOnce.warn("closed", "events after close() are dropped");
      return;
    }
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("event_id", UUID.randomUUID().toString());
    event.put("type", type.wireName());
    long at = Math.min(clock.getAsLong(), latestMs);
    event.put("timestamp", ISO_MILLIS.format(Instant.ofEpochMilli(at)));
    event.putAll(fields);
    EventQueue.Outcome outcome = queue.offer(event, type == EventType.EXPOSURE);
    if (outcome != EventQueue.Outcome.QUEUED) {
      if (!overflowing) {
        logger.warn("event queue full (" + queue.size() + "): dropping events, exposures "
            + "first, see stats()");
      }
      overflowing = true;
      if (outcome == EventQueue.Outcome.DROPPED) return;
    } else {
      overflowing = false;
    }
    onQueued.run();
  }
}

package dev.arbiter.client;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Moves events from the queue to the API. Runs on the scheduler thread only, so one drain runs
 * at a time; each sends what was queued when it began, so a steady stream of {@code track}
 * calls cannot keep a {@code flush()} waiting forever. Delivery is at least once: a batch whose
 * answer was lost is sent again with the same ids and the server keeps one copy.
 */
final class EventPipeline {
  private enum Outcome { SENT, REFUSED, UNREACHABLE }

  final AtomicLong sent = new AtomicLong();
  final AtomicLong dropped = new AtomicLong();
  final AtomicLong spilled = new AtomicLong();
  final AtomicLong replayed = new AtomicLong();
  final AtomicLong expired = new AtomicLong();

  private final Transport transport;
  private final EventQueue queue;
  private final OfflineStore store;
  private final ArbiterLogger logger;
  private final int batchSize;
  private final long flushIntervalMs;
  private final LongConsumer onAckVersion;
  /** Queues what callers' threads hold back (batched exposure checks) first; or null. */
  private final Runnable beforeDrain;
  /** Sends what rides along with the events (the targeting tallies) once they went through; or null. */
  private final Runnable afterDrain;
  private long intervalMs;
  /** Whether the store may hold events; starts true because a previous run may have left some. */
  private boolean storeMayHoldEvents = true;
  /** One line per outage, not one per batch. */
  private String outage;
  private String lastDetail = "";

  EventPipeline(Transport transport, EventQueue queue, OfflineStore store, ArbiterLogger logger,
      int batchSize, long flushIntervalMs, LongConsumer onAckVersion, Runnable beforeDrain,
      Runnable afterDrain) {
    this.transport = transport;
    this.queue = queue;
    this.store = store;
    this.logger = logger;
    this.batchSize = batchSize;
    this.flushIntervalMs = Math.max(1, flushIntervalMs);
    this.intervalMs = this.flushIntervalMs;
    this.onAckVersion = onAckVersion;
    this.beforeDrain = beforeDrain;
    this.afterDrain = afterDrain;
  }

  /** The delay before the next background flush: longer while the API is down. */
  long intervalMs() {
    return intervalMs;
  }

  /** Sends (or spills, or drops) everything queued when it began, then replays the store. */
  void drain() {
    if (beforeDrain != null) beforeDrain.run();
    int left = queue.size();
    boolean reachable = true;
    String detail = "";
    while (left > 0) {
      List<Map<String, Object>> batch = queue.take(Math.min(batchSize, left));
      if (batch.isEmpty()) break;
      left -= batch.size();
      // Once the API failed in this drain, the rest goes straight to the store: retrying each
      // batch against a server that is down only delays the shutdown of the host.
      if (reachable) {
        if (send(batch) != Outcome.UNREACHABLE) continue;
        reachable = false;
        detail = lastDetail;
      }
      spill(batch, detail);
    }
    if (reachable && store != null && storeMayHoldEvents) reachable = replay();
    // An API that just failed the events is not tried again for the tallies: they wait.
    if (reachable && afterDrain != null) afterDrain.run();
    // The interval backs off while the API is down, and snaps back once it answers.
    intervalMs = reachable ? flushIntervalMs
        : Math.min(intervalMs * 2, Math.max(ArbiterDefaults.MAX_FLUSH_INTERVAL_MS, flushIntervalMs));
    if (reachable && outage != null) {
      logger.warn("events: API reachable again");
      outage = null;
    }
  }

  private Outcome send(List<Map<String, Object>> batch) {
    String body;
    try {
      StringBuilder out = new StringBuilder("{\"events\":");
      JsonWriter.write(batch, out, 0);
      body = out.append('}').toString();
    } catch (IllegalArgumentException unwritable) {
      // Validated at track(); reaching here means a payload changed after it was queued.
      dropped.addAndGet(batch.size());
      logger.warn("dropped " + batch.size() + " events that cannot be written as JSON: "
          + unwritable.getMessage());
      return Outcome.REFUSED;
    }
    if (batch.size() > 1 && utf8Length(body) > ArbiterDefaults.MAX_EVENT_BATCH_BYTES) {
      int half = (batch.size() + 1) / 2;
      Outcome first = send(batch.subList(0, half));
      if (first == Outcome.UNREACHABLE) return first;
      return send(batch.subList(half, batch.size()));
    }
    Transport.Result result = transport.request("POST", "/v1/events", Map.of(), body);
    switch (result.kind) {
      case UNREACHABLE:
        lastDetail = result.detail;
        return Outcome.UNREACHABLE;
      case OK:
        sent.addAndGet(batch.size());
        readAck(result.body, batch.size());
        return Outcome.SENT;
      default:
        String detail = result.kind == Transport.Kind.REFUSED ? result.detail : "unexpected 304";
        dropped.addAndGet(batch.size());
        logger.warn("dropped " + batch.size() + " events: the API refused them (" + detail + ")");
        return Outcome.REFUSED;
    }
  }

  private void readAck(Object body, int size) {
    if (!(body instanceof Map)) return;
    Map<?, ?> ack = (Map<?, ?>) body;
    Object rejected = ack.get("rejected");
    if (rejected instanceof List && !((List<?>) rejected).isEmpty()) {
      Object first = ((List<?>) rejected).get(0);
      Object detail = first instanceof Map ? ((Map<?, ?>) first).get("detail") : first;
      logger.warn(((List<?>) rejected).size() + " of " + size
          + " events rejected by the API, first: " + detail);
    }
    Object version = ack.get("config_version");
    if (version instanceof Long) onAckVersion.accept((Long) version);
  }

  private void spill(List<Map<String, Object>> batch, String reason) {
    if (store == null) {
      dropped.addAndGet(batch.size());
      logger.warn("dropped " + batch.size()
          + " events, API unreachable and no offline store: " + reason);
      return;
    }
    try {
      int overflow = store.append(batch);
      storeMayHoldEvents = true;
      spilled.addAndGet(batch.size());
      if (overflow > 0) {
        dropped.addAndGet(overflow);
        logger.warn("offline store full: dropped its " + overflow + " oldest events");
      }
      if (outage == null) {
        logger.warn("API unreachable, events kept in the offline store for replay: " + reason);
      }
      outage = reason;
    } catch (Exception e) {
      dropped.addAndGet(batch.size());
      logger.warn("dropped " + batch.size() + " events, the offline store failed: " + e);
    }
  }

  /** Sends spilled events, oldest first; false when the API failed again. */
  private boolean replay() {
    try {
      while (true) {
        List<Map<String, Object>> events = store.peek(batchSize);
        if (events.isEmpty()) {
          storeMayHoldEvents = false;
          return true;
        }
        long cutoff = System.currentTimeMillis() - ArbiterDefaults.OFFLINE_REPLAY_WINDOW_MS;
        List<Map<String, Object>> fresh = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        for (Map<String, Object> e : events) {
          if (timestampMs(e) >= cutoff) {
            fresh.add(e);
          } else {
            stale.add((String) e.get("event_id"));
          }
        }
        if (!stale.isEmpty()) {
          store.remove(stale);
          expired.addAndGet(stale.size());
          logger.warn("discarded " + stale.size()
              + " spilled events older than the 24 h replay window");
        }
        if (fresh.isEmpty()) continue;
        Outcome outcome = send(fresh);
        if (outcome == Outcome.UNREACHABLE) return false;
        List<String> ids = new ArrayList<>(fresh.size());
        for (Map<String, Object> e : fresh) ids.add((String) e.get("event_id"));
        store.remove(ids);
        if (outcome == Outcome.SENT) replayed.addAndGet(fresh.size());
      }
    } catch (Exception e) {
      // The store could not be read or cleaned: stop here rather than resend the same events.
      logger.warn("offline store replay stopped: " + e);
      return true;
    }
  }

  /** An unreadable timestamp counts as expired: the server would refuse it anyway. */
  private static long timestampMs(Map<String, Object> event) {
    Object t = event.get("timestamp");
    if (!(t instanceof String)) return Long.MIN_VALUE;
    try {
      return Instant.parse((String) t).toEpochMilli();
    } catch (DateTimeParseException unreadable) {
      return Long.MIN_VALUE;
    }
  }

  /** Exact UTF-8 size, or a lower bound when even the worst case fits under the limit. */
  private static int utf8Length(String text) {
    if ((long) text.length() * 3 <= ArbiterDefaults.MAX_EVENT_BATCH_BYTES) return text.length();
    return text.getBytes(StandardCharsets.UTF_8).length;
  }
}

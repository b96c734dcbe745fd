package dev.arbiter.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Events waiting for a flush, in arrival order, shared by every thread of the application.
 * Bounded so that a long outage without an offline store costs memory up to the capacity and
 * no more; what does not fit is counted, since a silent drop would look like traffic that
 * never happened. {@code offer} never blocks.
 */
final class EventQueue {
  private final ArrayBlockingQueue<Map<String, Object>> items;
  private final AtomicLong dropped = new AtomicLong();

  EventQueue(int capacity) {
    this.items = new ArrayBlockingQueue<>(Math.max(1, capacity));
  }

  int size() {
    return items.size();
  }

  long dropped() {
    return dropped.get();
  }

  /** False when the queue was full and the event was dropped (and counted). */
  boolean offer(Map<String, Object> event) {
    if (items.offer(event)) return true;
    dropped.incrementAndGet();
    return false;
  }

  /** Removes and returns up to {@code count} of the oldest events. */
  List<Map<String, Object>> take(int count) {
    List<Map<String, Object>> out = new ArrayList<>(Math.min(count, 1024));
    items.drainTo(out, count);
    return out;
  }
}

package dev.arbiter.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Events waiting for a flush, in arrival order, shared by every thread of the application.
 * Bounded so that a long outage without an offline store costs memory up to the capacity and
 * no more; what does not fit is counted, since a silent drop would look like traffic that
 * never happened. {@code offer} never blocks.
 *
 * <p>A full queue drops exposures first: a model call or business event that finds it full
 * takes the place of the oldest queued exposure, which the next day's assignment sends again,
 * while a lost model call or conversion is gone for good. Exposures and other events wait in
 * two FIFOs, each event numbered on arrival, and {@link #take} merges them by that number, so
 * the oldest exposure is at hand and the order of delivery is still the order of arrival. One
 * monitor guards every change, so the rule holds whatever the threads do.
 */
final class EventQueue {
  /** What {@link #offer} did with the event. */
  enum Outcome {
    QUEUED,
    /** Queued in the place of the oldest queued exposure, which was dropped (and counted). */
    QUEUED_OVER_EXPOSURE,
    /** Dropped (and counted): the queue was full and held nothing it could give up. */
    DROPPED
  }

  private static final class Queued {
    final long seq;
    final Map<String, Object> event;

    Queued(long seq, Map<String, Object> event) {
      this.seq = seq;
      this.event = event;
    }
  }

  private final int capacity;
  private final ArrayDeque<Queued> exposures = new ArrayDeque<>();
  private final ArrayDeque<Queued> others = new ArrayDeque<>();
  private final AtomicLong dropped = new AtomicLong();
  private long nextSeq;
  /** Written under the monitor; read without it after each enqueue. */
  private volatile int size;

  EventQueue(int capacity) {
    this.capacity = Math.max(1, capacity);
  }

  int size() {
    return size;
  }

  long dropped() {
    return dropped.get();
  }

  /** Queues {@code event}, an exposure or not, by the rule above. Never blocks for long. */
  Outcome offer(Map<String, Object> event, boolean exposure) {
    // An exposure is never kept at the expense of another event: a full queue drops it at once.
    if (exposure && size >= capacity) {
      dropped.incrementAndGet();
      return Outcome.DROPPED;
    }
    Outcome outcome = Outcome.QUEUED;
    synchronized (this) {
      if (size >= capacity) {
        if (exposure || exposures.isEmpty()) {
          dropped.incrementAndGet();
          return Outcome.DROPPED;
        }
        exposures.pollFirst();
        dropped.incrementAndGet();
        outcome = Outcome.QUEUED_OVER_EXPOSURE;
      }
      (exposure ? exposures : others).addLast(new Queued(nextSeq++, event));
      size = exposures.size() + others.size();
    }
    return outcome;
  }

  /** Removes and returns up to {@code count} of the oldest events, oldest first. */
  List<Map<String, Object>> take(int count) {
    List<Map<String, Object>> out = new ArrayList<>(Math.min(Math.max(0, count), 1024));
    synchronized (this) {
      while (out.size() < count) {
        Queued e = exposures.peekFirst();
        Queued o = others.peekFirst();
        if (e == null && o == null) break;
        boolean exposureFirst = o == null || (e != null && e.seq < o.seq);
        out.add((exposureFirst ? exposures : others).pollFirst().event);
      }
      size = exposures.size() + others.size();
    }
    return out;
  }
}

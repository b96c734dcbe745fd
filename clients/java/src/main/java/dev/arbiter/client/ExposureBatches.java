package dev.arbiter.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * Exposure checks against a large table, kept per thread and decided {@link #SIZE} at a time
 * (docs/decisions/clients.md#java-exposure-checks-in-batches-past-the-l2-cache). A table past the L2
 * cache costs every call one random read of memory, several times the rest of {@code assign};
 * a batch reads every call's slot in one loop first, so those misses overlap, then decides each
 * call in order as {@code assign} would have.
 *
 * <p>Each thread appends to a batch of its own with plain writes and publishes the count with a
 * release store: no lock and no atomic instruction per call. Its batch is found through a small
 * array indexed by the thread's id, checked against its owner, with a {@code ThreadLocal}
 * behind it for the threads the array has no slot for. A batch is decided under its ring's
 * lock, by its thread when full (then emptied and refilled: one object per thread) and by the
 * threads that decide every batch (the flush, {@code stats()}, {@code close()}), which decide the
 * published entries and advance the {@code decided} mark. So an entry is decided once, and a
 * thread's exposures are all queued when it queues any later event. The owner writes past the
 * published count only, which nobody else reads, and empties the batch under the lock.
 */
final class ExposureBatches {
  /** Calls a batch holds: enough misses in flight to hide most of the memory's latency. */
  static final int SIZE = 64;
  /**
   * A table of this many slots (8 bytes each: 2 MiB, one core's L2 cache) or more is checked in
   * batches; a smaller one stays in the cache, where a call's own check is cheaper than the
   * batch's bookkeeping.
   */
  static final int DEFAULT_FROM_SLOTS = 1 << 18;

  /** Slots of the array of rings by thread id: threads past it take the {@code ThreadLocal}. */
  private static final int RING_SLOTS = 128;
  private static final VarHandle PUBLISHED;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      PUBLISHED = lookup.findVarHandle(Batch.class, "published", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** What deciding one call does: the table's check, and the exposure queued when it is new. */
  interface Decider {
    void decide(CompiledExperiment entry, String user, int range, long fingerprint, long dayTime,
        long latestStamp);
  }

  private final Decider decider;
  private final int fromSlots;
  /**
   * Rings by thread id modulo its length, written under this object's monitor: the lookup that
   * costs no hashing (the {@code ThreadLocal} cost ~3 ns a call, bench/java-client/RESULTS.md).
   */
  private final Ring[] byThread = new Ring[RING_SLOTS];
  /** Each thread's ring, from its first batched call on, when {@code byThread} has no slot. */
  private final ThreadLocal<Ring> rings = new ThreadLocal<>();
  /** Every thread's ring; guarded by this object's monitor. */
  private final List<Ring> all = new ArrayList<>();
  /** Read into by the first pass, so that its reads are not dropped as unused. */
  private volatile long sink;
  /** Set by {@link #close}: calls from then on are checked one by one. */
  private volatile boolean closed;

  ExposureBatches(Decider decider, int fromSlots) {
    this.decider = decider;
    this.fromSlots = fromSlots;
  }

  /** Whether calls of this experiment's table are batched now: the table has outgrown L2. */
  boolean batches(CompiledExperiment entry) {
    return entry.exposed.slotCount() >= fromSlots && !closed;
  }

  /** Keeps a call to be decided with its batch; {@code dayTime} is any time of its UTC day. */
  void add(CompiledExperiment entry, String user, int range, long fingerprint, long dayTime) {
    Ring ring = ringOfThisThread();
    Batch batch = ring.current;
    if (dayTime < batch.dayStartsAt || dayTime >= batch.dayEndsAt) {
      if (batch.count > 0) decideOwn(ring, batch);
      batch.startDay(dayTime);
    }
    int n = batch.count;
    // A batch of one experiment's calls (the usual one) names it once, not per call.
    if (batch.mixed) {
      batch.entries[2 * n] = entry;
    } else if (n == 0) {
      batch.only = entry;
    } else if (entry != batch.only) {
      // Under the lock: a thread deciding the published calls reads both shapes consistently.
      synchronized (ring) {
        batch.mix(n, entry);
      }
    }
    batch.entries[2 * n + 1] = user;
    batch.keys[2 * n] = fingerprint;
    batch.keys[2 * n + 1] = range;
    batch.count = n + 1;
    PUBLISHED.setRelease(batch, n + 1);
    if (n + 1 == SIZE) decideOwn(ring, batch);
  }

  /** Decides the calling thread's batch: before it queues any other event, so order is kept. */
  void decideMine() {
    Ring ring = ringOfThisThreadIfAny();
    if (ring == null) return;
    Batch batch = ring.current;
    if (batch.count > 0) decideOwn(ring, batch);
  }

  /**
   * Decides what every thread has published: before a flush, {@code stats()} and
   * {@code close()}. A thread that has ended is forgotten once its calls are decided.
   */
  synchronized void decideAll() {
    for (Iterator<Ring> it = all.iterator(); it.hasNext();) {
      Ring ring = it.next();
      // Read first: a thread seen ended has published its last call before it ended.
      boolean ended = !ring.owner.isAlive();
      synchronized (ring) {
        Batch batch = ring.current;
        int published = (int) PUBLISHED.getAcquire(batch);
        if (batch.decided < published) {
          decide(batch, batch.decided, published);
          batch.decided = published;
        }
      }
      if (ended) {
        it.remove();
        int slot = slotOf(ring.owner);
        if (byThread[slot] == ring) byThread[slot] = null;
      }
    }
  }

  /**
   * Decides what every thread has published, then leaves each thread's ring an empty batch: a
   * ring may be a value of its thread's thread-local map, which outlives this object until the
   * thread touches that map again, and a batch left there would keep its calls' experiments and
   * their exposure tables (megabytes each) alive after the client is gone. A call racing with
   * this one may be left undecided, as an event tracked while the client closes may be dropped.
   */
  synchronized void close() {
    closed = true;
    decideAll();
    for (Ring ring : all) ring.current = new Batch();
    all.clear();
    Arrays.fill(byThread, null);
  }

  private Ring ringOfThisThread() {
    Ring ring = ringOfThisThreadIfAny();
    return ring != null ? ring : newRing();
  }

  private Ring ringOfThisThreadIfAny() {
    Thread thread = Thread.currentThread();
    Ring ring = byThread[slotOf(thread)];
    return ring != null && ring.owner == thread ? ring : rings.get();
  }

  /** The calling thread's first batched call: a slot of {@code byThread} if one is free. */
  private synchronized Ring newRing() {
    Thread thread = Thread.currentThread();
    Ring ring = new Ring(thread);
    int slot = slotOf(thread);
    Ring held = byThread[slot];
    if (held == null || !held.owner.isAlive()) {
      byThread[slot] = ring;
    } else {
      rings.set(ring);
    }
    all.add(ring);
    return ring;
  }

  @SuppressWarnings("deprecation") // threadId() is Java 19's name for it
  private static int slotOf(Thread thread) {
    return (int) thread.getId() & (RING_SLOTS - 1);
  }

  /**
   * Decides the calling thread's batch from its mark on and empties it for reuse: under the
   * ring's lock, so that no other thread is deciding it, and forgetting its calls' experiments
   * and users, so that an idle thread's batch keeps no replaced experiment's table alive.
   */
  private void decideOwn(Ring ring, Batch batch) {
    synchronized (ring) {
      int count = batch.count;
      if (batch.decided < count) decide(batch, batch.decided, count);
      batch.entries = new Object[2 * SIZE];
      batch.only = null;
      batch.mixed = false;
      batch.decided = 0;
      batch.count = 0;
      PUBLISHED.setRelease(batch, 0);
    }
  }

  /** Entries {@code from} to {@code to} of a batch: every slot read, then each call in order. */
  private void decide(Batch batch, int from, int to) {
    if (!batch.mixed) {
      decideOneExperiment(batch, from, to);
      return;
    }
    Object[] entries = batch.entries;
    long[] keys = batch.keys;
    // Calls come in runs of one experiment: its table is looked up once a run.
    Object last = null;
    long[] table = null;
    long read = 0;
    for (int i = from; i < to; i++) {
      Object entry = entries[2 * i];
      if (entry != last) {
        last = entry;
        table = ((CompiledExperiment) entry).exposed.slotsToRead();
      }
      read ^= ExposureTable.homeSlotIn(table, keys[2 * i]);
    }
    sink = read;
    // An event is never stamped past the day its call was decided on.
    long latestStamp = batch.dayEndsAt - 1;
    long dayTime = batch.dayStartsAt;
    last = null;
    long[] seen = null;
    for (int i = from; i < to; i++) {
      CompiledExperiment entry = (CompiledExperiment) entries[2 * i];
      if (entry != last) {
        last = entry;
        seen = entry.exposed.seenSlots(dayTime);
      }
      // The steady state, a user already exposed today, is answered here without the call.
      if (ExposureTable.seenIn(seen, keys[2 * i])) continue;
      decider.decide(entry, (String) entries[2 * i + 1], (int) keys[2 * i + 1], keys[2 * i],
          dayTime, latestStamp);
    }
  }

  /**
   * {@link #decide} for a batch of one experiment's calls: its loops read the keys alone, so
   * more of the first loop's reads are in flight at once.
   */
  private void decideOneExperiment(Batch batch, int from, int to) {
    CompiledExperiment entry = batch.only;
    Object[] entries = batch.entries;
    long[] keys = batch.keys;
    long[] table = entry.exposed.slotsToRead();
    long read = 0;
    for (int i = from; i < to; i++) read ^= ExposureTable.homeSlotIn(table, keys[2 * i]);
    sink = read;
    long latestStamp = batch.dayEndsAt - 1;
    long dayTime = batch.dayStartsAt;
    long[] seen = entry.exposed.seenSlots(dayTime);
    for (int i = from; i < to; i++) {
      if (ExposureTable.seenIn(seen, keys[2 * i])) continue;
      decider.decide(entry, (String) entries[2 * i + 1], (int) keys[2 * i + 1], keys[2 * i],
          dayTime, latestStamp);
    }
  }

  /** One thread's batch, and the lock its deciders take. */
  private static final class Ring {
    final Thread owner;
    /** Emptied for reuse by its owner; replaced by {@link #close} only. */
    volatile Batch current = new Batch();

    Ring(Thread owner) {
      this.owner = owner;
    }
  }

  /**
   * Calls of one UTC day, in order; emptied and refilled by its thread, under the ring's lock.
   * Its keys are reused; its entries are a new array each time, which measured faster than
   * clearing the old one (probably because reference stores into a young array take the short
   * way through G1's write barrier) and forgets the calls' experiments all the same.
   */
  private static final class Batch {
    /** Per call: its experiment (once {@code mixed}; null before), then its user id. */
    Object[] entries = new Object[2 * SIZE];
    /** Per call: its fingerprint, then its variant's range. */
    final long[] keys = new long[2 * SIZE];
    /** The UTC day of every call in the batch, as [start, end) in epoch ms; empty at first. */
    long dayStartsAt = Long.MAX_VALUE;
    long dayEndsAt = Long.MIN_VALUE;
    /** The experiment of every call while not {@code mixed}; written by the owner. */
    CompiledExperiment only;
    /**
     * Whether the batch holds calls of several experiments, each named in {@code entries};
     * written under the ring's lock.
     */
    boolean mixed;

    /** Call {@code n} is of another experiment than the calls before it: name each call's. */
    void mix(int n, CompiledExperiment entry) {
      for (int i = 0; i < n; i++) entries[2 * i] = only;
      entries[2 * n] = entry;
      mixed = true;
    }

    /** Calls appended, written by the owner only. */
    int count;
    /** {@code count} as other threads may read it. */
    @SuppressWarnings("unused")
    private volatile int published;
    /** Calls before this one are decided; guarded by the ring's lock. */
    int decided;

    void startDay(long dayTime) {
      dayStartsAt = Math.floorDiv(dayTime, ExposureTable.DAY_MS) * ExposureTable.DAY_MS;
      dayEndsAt = dayStartsAt + ExposureTable.DAY_MS;
    }
  }
}

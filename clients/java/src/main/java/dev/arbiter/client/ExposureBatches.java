package dev.arbiter.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Exposure checks against a large table, kept per thread and decided {@link #SIZE} at a time
 * (docs/decisions.md#java-exposure-checks-in-batches-past-the-l2-cache). A table past the L2
 * cache costs every call one random read of memory, several times the rest of {@code assign};
 * a batch reads every call's slot in one loop first, so those misses overlap, then decides each
 * call in order as {@code assign} would have.
 *
 * <p>Each thread appends to a batch of its own with plain writes and publishes the count with a
 * release store: no lock and no atomic instruction per call. A full batch is decided by its
 * thread, which then starts a new batch object, so a batch's published entries are never
 * written again. Other threads (the flush, {@code stats()}, {@code close()}) decide the published
 * entries of every thread's batch and advance its {@code decided} mark, under this object's
 * monitor; the owner decides from that mark on. The two can meet on an entry at the same
 * moment, and then both decide it: the exposure table answers "first today" once, so the
 * exposure is still queued once.
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

  private static final VarHandle PUBLISHED;
  private static final VarHandle DECIDED;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      PUBLISHED = lookup.findVarHandle(Batch.class, "published", int.class);
      DECIDED = lookup.findVarHandle(Batch.class, "decided", int.class);
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
  /** Each thread's batches, from its first batched call on. */
  private final ThreadLocal<Ring> rings = new ThreadLocal<>();
  private final Queue<Ring> all = new ConcurrentLinkedQueue<>();
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
    Ring ring = rings.get();
    if (ring == null) ring = newRing();
    Batch batch = ring.current;
    if (dayTime < batch.dayStartsAt || dayTime >= batch.dayEndsAt) {
      if (batch.count > 0) batch = ring.decideOwn(this);
      batch.startDay(dayTime);
    }
    int n = batch.count;
    batch.entries[2 * n] = entry;
    batch.entries[2 * n + 1] = user;
    batch.keys[2 * n] = fingerprint;
    batch.keys[2 * n + 1] = range;
    batch.count = n + 1;
    PUBLISHED.setRelease(batch, n + 1);
    if (n + 1 == SIZE) ring.decideOwn(this);
  }

  /** Decides the calling thread's batch: before it queues any other event, so order is kept. */
  void decideMine() {
    Ring ring = rings.get();
    if (ring != null && ring.current.count > 0) ring.decideOwn(this);
  }

  /**
   * Decides what every thread has published: before a flush, {@code stats()} and
   * {@code close()}. A thread that has ended and left nothing is forgotten.
   */
  synchronized void decideAll() {
    for (Iterator<Ring> it = all.iterator(); it.hasNext();) {
      Ring ring = it.next();
      Batch batch = ring.current;
      int published = (int) PUBLISHED.getAcquire(batch);
      int from = (int) DECIDED.getAcquire(batch);
      if (from < published) {
        decide(batch, from, published);
        DECIDED.setRelease(batch, published);
      }
      if (!ring.owner.isAlive() && ring.current == batch && published == batch.count) {
        it.remove();
      }
    }
  }

  /**
   * Decides what every thread has published, then leaves each thread's ring an empty batch: a
   * ring is a value of each thread's thread-local map, which outlives this object until the
   * thread touches that map again, and a batch left there would keep its calls' experiments and
   * their exposure tables (megabytes each) alive after the client is gone. A call racing with
   * this one may be left undecided, as an event tracked while the client closes may be dropped.
   */
  synchronized void close() {
    closed = true;
    decideAll();
    for (Ring ring : all) ring.current = new Batch();
    all.clear();
  }

  private Ring newRing() {
    Ring ring = new Ring(Thread.currentThread());
    rings.set(ring);
    all.add(ring);
    return ring;
  }

  /** Entries {@code from} to {@code to} of a batch: every slot read, then each call in order. */
  private void decide(Batch batch, int from, int to) {
    Object[] entries = batch.entries;
    long[] keys = batch.keys;
    // A batch is mostly one experiment's calls: its table is looked up once a run of them.
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
    for (int i = from; i < to; i++) {
      CompiledExperiment entry = (CompiledExperiment) entries[2 * i];
      // The steady state, a user already exposed today, is answered here without the call.
      if (entry.exposed.seenToday(keys[2 * i], dayTime)) continue;
      decider.decide(entry, (String) entries[2 * i + 1], (int) keys[2 * i + 1], keys[2 * i],
          dayTime, latestStamp);
    }
  }

  /** One thread's batches. */
  private static final class Ring {
    final Thread owner;
    /** Replaced by its owner only; read by the threads that decide every batch. */
    volatile Batch current = new Batch();

    Ring(Thread owner) {
      this.owner = owner;
    }

    /** Decides the owner's batch from its mark on and starts a new one (owner only). */
    Batch decideOwn(ExposureBatches batches) {
      Batch full = current;
      Batch next = new Batch();
      current = next;
      int from = (int) DECIDED.getAcquire(full);
      if (from < full.count) batches.decide(full, from, full.count);
      return next;
    }
  }

  /**
   * Calls of one UTC day, in order. A new object each time (about 1.6 KB per 64 calls), so that
   * an entry, once published, is never written again: a thread deciding every batch never reads
   * one being refilled. Reusing one was measured 2-3 ns a call faster, and would need a handshake
   * with those threads.
   */
  private static final class Batch {
    /** Per call: its experiment, then its user id. */
    final Object[] entries = new Object[2 * SIZE];
    /** Per call: its fingerprint, then its variant's range. */
    final long[] keys = new long[2 * SIZE];
    /** The UTC day of every call in the batch, as [start, end) in epoch ms; empty at first. */
    long dayStartsAt = Long.MAX_VALUE;
    long dayEndsAt = Long.MIN_VALUE;
    /** Calls appended, written by the owner only. */
    int count;
    /** {@code count} as other threads may read it. */
    @SuppressWarnings("unused")
    private volatile int published;
    /** Calls before this one were decided by another thread. */
    @SuppressWarnings("unused")
    private volatile int decided;

    void startDay(long dayTime) {
      dayStartsAt = Math.floorDiv(dayTime, ExposureTable.DAY_MS) * ExposureTable.DAY_MS;
      dayEndsAt = dayStartsAt + ExposureTable.DAY_MS;
    }
  }
}

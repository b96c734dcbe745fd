package dev.arbiter.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Who of one experiment has been sent an exposure today: 64-bit fingerprints of (user id,
 * variant) in an open-addressing table of longs (linear probing, 0 = empty), grown by doubling
 * up to the capacity, cleared when the capacity is reached and when the UTC day changes
 * (docs/decisions/clients.md#exposure-de-duplication-in-the-clients).
 *
 * <p>Many threads call {@link #firstToday} at once. The hot path, a fingerprint already there,
 * takes no lock: it reads the volatile array reference and probes it with opaque reads (a long
 * read whole, even on a JVM that may split plain long accesses). Every change happens under the
 * table's monitor: a slot is written in place, and a grown or cleared table is a new array,
 * filled before it is published, so a reader never sees an array without an empty slot to stop
 * at. A reader that finds the fingerprint knows some caller recorded it and sent that exposure;
 * one that does not, or that sees a day past the table's, takes the monitor and looks again, so
 * exactly one caller records (and sends) a given fingerprint per day and table.
 */
final class ExposureTable {
  static final long DAY_MS = 86_400_000L;
  /** The most fingerprints a table may hold, so that its array stays within Java's limit. */
  static final int MAX_CAPACITY = 1 << 30;
  private static final int INITIAL_SLOTS = 256;
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

  private final int capacity;
  private final int maxSlots;
  /** Replaced whole (grown, cleared) under the monitor, written in place under it. */
  private volatile long[] slots;
  /**
   * The next UTC midnight after the day the table holds, in epoch ms: a call at or past it
   * starts a new day. Written after {@code slots}, so a caller that reads the new day reads the
   * new (empty) array too.
   */
  private volatile long dayEndsAt = Long.MIN_VALUE;
  /** Fingerprints in {@code slots}; guarded by the monitor. */
  private int count;

  /** @param capacity fingerprints held before the table is cleared, 1 to {@link #MAX_CAPACITY} */
  ExposureTable(int capacity) {
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException("capacity out of range: " + capacity);
    }
    this.capacity = capacity;
    // At most three slots in four are filled, so a probe meets an empty slot soon.
    long needed = ((long) capacity * 4 + 2) / 3;
    while (limit(needed) < capacity) needed++;
    this.maxSlots = (int) needed;
    this.slots = new long[Math.min(INITIAL_SLOTS, maxSlots)];
  }

  /**
   * True when {@code fingerprint} was not recorded yet on the UTC day of {@code nowMs}: it is
   * recorded now, and the caller sends the exposure. False when it was.
   */
  boolean firstToday(long fingerprint, long nowMs) {
    // seenIn's check, written out: calling it from here measured the batched path slower
    // (bench/java-client/RESULTS.md).
    long fp = fingerprint == 0 ? 1 : fingerprint;
    if (nowMs < dayEndsAt && contains(slots, fp)) return false;
    return record(fp, nowMs);
  }

  /**
   * The array to answer {@link #seenIn} from for calls on the UTC day of {@code nowMs}, or null
   * when that day is past the table's. A batch reads it once for a run of calls of this table:
   * a fingerprint in an array since replaced (grown, or cleared at the capacity) was recorded
   * today all the same, and one recorded in the new array only is left to {@link #firstToday}.
   */
  long[] seenSlots(long nowMs) {
    // The day first: a caller that reads the new day reads the new (empty) array too.
    return nowMs < dayEndsAt ? slots : null;
  }

  /**
   * True when {@code fingerprint} is in {@code table} from {@link #seenSlots}: the lock-free
   * first check of {@link #firstToday}, for a batch to answer most calls without calling it.
   * False leaves the call to {@link #firstToday}, which looks again under the monitor.
   */
  static boolean seenIn(long[] table, long fingerprint) {
    return table != null && contains(table, fingerprint == 0 ? 1 : fingerprint);
  }

  /**
   * The current array, for {@link #homeSlotIn}. A batch reads it once for a run of calls of
   * this table: an array replaced since then only makes that read useless, not wrong.
   */
  long[] slotsToRead() {
    return slots;
  }

  /**
   * A fingerprint's home slot in {@code table}: a read whose only use is to bring the slot's
   * cache line in, so that {@link #seenIn} finds it there (see {@link ExposureBatches}).
   */
  static long homeSlotIn(long[] table, long fingerprint) {
    return table[indexOf(fingerprint, table.length)];
  }

  /** Slots of the current array (8 bytes each): the table's memory. */
  int slotCount() {
    return slots.length;
  }

  synchronized int size() {
    return count;
  }

  private static boolean contains(long[] table, long fp) {
    int n = table.length;
    for (int i = indexOf(fp, n);;) {
      long v = (long) SLOT.getOpaque(table, i);
      if (v == fp) return true;
      if (v == 0) return false;
      if (++i == n) i = 0;
    }
  }

  private synchronized boolean record(long fp, long nowMs) {
    // A call that read the clock just before midnight and arrives after another call started
    // the new day is counted on the new day: its event is stamped after this point too.
    if (nowMs >= dayEndsAt) {
      if (count > 0) clear();
      dayEndsAt = (Math.floorDiv(nowMs, DAY_MS) + 1) * DAY_MS;
    }
    if (contains(slots, fp)) return false;
    if (count >= capacity) clear();
    long[] table = slots;
    if (count + 1 > limit(table.length)) {
      table = grown(table);
    }
    put(table, fp);
    // A grown table is published only once filled.
    if (table != slots) slots = table;
    count++;
    return true;
  }

  /** Forgets everyone: a new, small array, so the memory of a full day is given back. */
  private void clear() {
    slots = new long[Math.min(INITIAL_SLOTS, maxSlots)];
    count = 0;
  }

  private long[] grown(long[] table) {
    long[] bigger = new long[(int) Math.min((long) table.length * 2, maxSlots)];
    for (long v : table) {
      if (v != 0) put(bigger, v);
    }
    return bigger;
  }

  private static void put(long[] table, long fp) {
    int n = table.length;
    int i = indexOf(fp, n);
    while (table[i] != 0) {
      if (++i == n) i = 0;
    }
    SLOT.setRelease(table, i, fp);
  }

  /** Fingerprints a table of {@code slots} slots may hold: three in four. */
  private static long limit(long slots) {
    return slots * 3 / 4;
  }

  /**
   * The home slot: the fingerprint's high 32 bits scaled to {@code n} (D. Lemire's multiply-shift
   * range reduction), which serves any table size, the last one not being a power of two.
   */
  private static int indexOf(long fp, int n) {
    return (int) (((fp >>> 32) * n) >>> 32);
  }
}

package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The per-experiment fingerprint table: once per UTC day, bounded, safe under many threads. */
class ExposureTableTest {
  /** 2026-11-25T00:00:00Z. */
  private static final long DAY_START = 1_795_564_800_000L;

  private static long[] fingerprints(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] out = new long[n];
    for (int i = 0; i < n; i++) out[i] = random.nextLong();
    return out;
  }

  @Test
  void recordsAFingerprintOncePerUtcDay() {
    ExposureTable table = new ExposureTable(1_000);
    long noon = DAY_START + ExposureTable.DAY_MS / 2;
    assertTrue(table.firstToday(42, noon));
    assertFalse(table.firstToday(42, noon + 1));
    assertFalse(table.firstToday(42, DAY_START + ExposureTable.DAY_MS - 1), "23:59:59.999");
    assertTrue(table.firstToday(42, DAY_START + ExposureTable.DAY_MS), "midnight starts a new day");
    assertFalse(table.firstToday(42, DAY_START + ExposureTable.DAY_MS + 5));
    // A fingerprint of 0 (the empty slot's mark) is recorded like any other.
    assertTrue(table.firstToday(0, noon + ExposureTable.DAY_MS));
    assertFalse(table.firstToday(0, noon + ExposureTable.DAY_MS));
  }

  @Test
  void seenInAnswersWithoutRecording() {
    ExposureTable table = new ExposureTable(1_000);
    long noon = DAY_START + ExposureTable.DAY_MS / 2;
    assertFalse(ExposureTable.seenIn(table.seenSlots(noon), 42), "an empty table has seen no one");
    assertFalse(ExposureTable.seenIn(table.seenSlots(noon), 42), "asking records nothing");
    assertTrue(table.firstToday(42, noon));
    assertTrue(ExposureTable.seenIn(table.seenSlots(noon + 1), 42));
    assertFalse(ExposureTable.seenIn(table.seenSlots(noon + 1), 43));
    assertNull(table.seenSlots(DAY_START + ExposureTable.DAY_MS), "not on the next day");
    assertFalse(ExposureTable.seenIn(null, 42), "no array has seen no one");
    assertEquals(1, table.size());
    // 0, stored as 1, is seen as the fingerprint it was recorded as.
    assertTrue(table.firstToday(0, noon));
    assertTrue(ExposureTable.seenIn(table.seenSlots(noon), 0));
  }

  @Test
  void anArrayReadBeforeItGrewStillAnswersForWhatItHeld() {
    ExposureTable table = new ExposureTable(100_000);
    long noon = DAY_START + ExposureTable.DAY_MS / 2;
    assertTrue(table.firstToday(7, noon));
    long[] before = table.seenSlots(noon);
    int slots = table.slotCount();
    for (long fp = 100; table.slotCount() == slots; fp++) table.firstToday(fp, noon);
    assertTrue(ExposureTable.seenIn(before, 7), "recorded today, before the table grew");
    assertTrue(ExposureTable.seenIn(table.seenSlots(noon), 7), "and in the grown array");
    assertFalse(ExposureTable.seenIn(before, 99), "never recorded");
  }

  @Test
  void aClockThatStepsBackKeepsTheDayItHas() {
    ExposureTable table = new ExposureTable(1_000);
    long tomorrow = DAY_START + ExposureTable.DAY_MS;
    assertTrue(table.firstToday(7, tomorrow + 10));
    // A call that read the clock before midnight, or a clock set back: today's table answers.
    assertFalse(table.firstToday(7, tomorrow - 10));
    assertTrue(table.firstToday(8, tomorrow - 10));
    assertFalse(table.firstToday(8, tomorrow + 20));
  }

  @Test
  void growsByDoublingAndHoldsTheWholeCapacity() {
    int capacity = 100_000;
    ExposureTable table = new ExposureTable(capacity);
    assertEquals(256, table.slotCount());
    long[] fps = fingerprints(capacity, 1);
    List<Integer> sizes = new ArrayList<>();
    for (long fp : fps) {
      assertTrue(table.firstToday(fp, DAY_START));
      if (sizes.isEmpty() || sizes.get(sizes.size() - 1) != table.slotCount()) sizes.add(table.slotCount());
    }
    // 256, 512, ... then the last step to 4/3 of the capacity, never more.
    for (int i = 1; i < sizes.size() - 1; i++) assertEquals(sizes.get(i - 1) * 2, sizes.get(i));
    assertEquals(133_334, table.slotCount());
    assertEquals(capacity, table.size());
    for (long fp : fps) assertFalse(table.firstToday(fp, DAY_START + 1), "every one still there");
  }

  @Test
  void reachingTheCapacityClearsAndKeepsMemoryBounded() {
    int capacity = 1_000;
    ExposureTable table = new ExposureTable(capacity);
    long[] fps = fingerprints(50_000, 2);
    for (int i = 0; i < capacity; i++) assertTrue(table.firstToday(fps[i], DAY_START));
    assertEquals(capacity, table.size());
    int full = table.slotCount();
    assertTrue(full <= 1_334, "at most 4/3 slots a fingerprint: " + full);
    // One more: the table forgets everyone and starts again with it.
    assertTrue(table.firstToday(fps[capacity], DAY_START));
    assertEquals(1, table.size());
    assertTrue(table.firstToday(fps[0], DAY_START), "forgotten, so sent again");
    for (long fp : fps) {
      table.firstToday(fp, DAY_START);
      assertTrue(table.size() <= capacity && table.slotCount() <= full);
    }
  }

  @Test
  void theCapacityIsChecked() {
    assertThrows(IllegalArgumentException.class, () -> new ExposureTable(0));
    assertThrows(IllegalArgumentException.class, () -> new ExposureTable(ExposureTable.MAX_CAPACITY + 1));
    ExposureTable one = new ExposureTable(1);
    assertTrue(one.firstToday(1, DAY_START));
    assertFalse(one.firstToday(1, DAY_START));
    assertTrue(one.firstToday(2, DAY_START));
    assertTrue(one.firstToday(1, DAY_START));
    assertEquals(new ExposureTable(ExposureTable.MAX_CAPACITY).slotCount(), 256, "grown on demand");
  }

  /**
   * Eight threads offer the same fingerprints in different orders while the table grows, and
   * then again across a midnight: each fingerprint is recorded by exactly one thread a day, so
   * no exposure is lost and none is sent twice.
   */
  @Test
  void manyThreadsRecordEachFingerprintOnceADay() throws Exception {
    int threads = 8;
    int n = 65_537; // prime: every odd stride below it visits each index once
    long[] fps = fingerprints(n, 3);
    ExposureTable table = new ExposureTable(ExposureTable.MAX_CAPACITY);
    for (long day : new long[] {DAY_START, DAY_START + ExposureTable.DAY_MS}) {
      AtomicIntegerArray wins = new AtomicIntegerArray(n);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int stride = 2 * t + 1;
        Thread worker = new Thread(() -> {
          try {
            go.await();
            for (int k = 0; k < n; k++) {
              // Odd strides visit every index, each thread in its own order.
              int i = (int) ((long) k * stride % n);
              if (table.firstToday(fps[i], day + k)) wins.incrementAndGet(i);
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        });
        workers.add(worker);
        worker.start();
      }
      go.countDown();
      for (Thread w : workers) w.join();
      assertEquals(null, failure.get());
      for (int i = 0; i < n; i++) assertEquals(1, wins.get(i), "fingerprint " + i);
      assertEquals(n, table.size());
    }
  }
}

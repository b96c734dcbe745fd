package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The day clock's ticks, driven by hand: far from midnight a call reads the tick's reading (no
 * clock read); from two minutes before midnight to a second after, it reads the clock itself.
 */
class UtcDayClockTest {
  /** 2026-11-25T00:00:00Z. */
  private static final long MIDNIGHT = 1_795_564_800_000L;

  @Test
  void publishesAReadingFarFromMidnightAndReadsTheClockNearIt() {
    AtomicLong wall = new AtomicLong(MIDNIGHT + 3_600_000L);
    UtcDayClock clock = new UtcDayClock(wall::get);
    assertEquals(MIDNIGHT + 3_600_000L, clock.dayTime(), "before any tick: the clock");
    assertEquals(UtcDayClock.MAX_SLEEP_MS, clock.tick());
    wall.addAndGet(30_000);
    assertEquals(MIDNIGHT + 3_600_000L, clock.dayTime(), "the tick's reading, same day");

    // Three minutes before the next midnight: the next tick is due when two are left.
    long nextMidnight = MIDNIGHT + ExposureTable.DAY_MS;
    wall.set(nextMidnight - 180_000);
    assertEquals(60_000, clock.tick());
    wall.set(nextMidnight - 120_000);
    assertEquals(120_000 + UtcDayClock.AFTER_MIDNIGHT_MS, clock.tick());
    wall.set(nextMidnight - 1);
    assertEquals(nextMidnight - 1, clock.dayTime(), "near midnight: the clock itself");
    wall.set(nextMidnight);
    assertEquals(nextMidnight, clock.dayTime(), "the new day at its first millisecond");

    // A tick that comes early after midnight waits out the second; then readings resume.
    wall.set(nextMidnight + 400);
    assertEquals(600, clock.tick());
    wall.set(nextMidnight + 900);
    assertEquals(nextMidnight + 900, clock.dayTime());
    wall.set(nextMidnight + UtcDayClock.AFTER_MIDNIGHT_MS);
    assertEquals(UtcDayClock.MAX_SLEEP_MS, clock.tick());
    wall.set(nextMidnight + 50_000);
    assertEquals(nextMidnight + UtcDayClock.AFTER_MIDNIGHT_MS, clock.dayTime());
  }

  @Test
  void theSystemClockIsTicked() throws Exception {
    UtcDayClock system = UtcDayClock.system();
    long now = System.currentTimeMillis();
    long dayTime = system.dayTime();
    // Whichever it answers (the ticker's reading or the clock), it is a time of the day of
    // the clock read just before, or of the next if midnight fell between the two reads.
    long day = Math.floorDiv(now, ExposureTable.DAY_MS);
    long answered = Math.floorDiv(dayTime, ExposureTable.DAY_MS);
    assertEquals(true, answered == day || answered == day + 1, dayTime + " vs " + now);
    assertEquals(true, Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals("arbiter-utc-day") && t.isDaemon()));
  }
}

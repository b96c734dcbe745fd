package dev.arbiter.client;

import java.util.function.LongSupplier;

/**
 * The time {@link ExposureTable} decides the UTC day with, without reading the clock on every
 * {@code assign}: a clock read costs about 20 ns here, more than half of an {@code assign}, and
 * it orders the CPU's work around it. One daemon thread per JVM ({@code arbiter-utc-day}) reads
 * the system clock at least once a minute and publishes the reading while the next UTC
 * midnight is more than {@link #MARGIN_MS} away; from then until a second after midnight it
 * publishes nothing, and every call reads the clock itself, so the day changes at the exact
 * millisecond. Any reading of the current day serves: only its day is used.
 */
final class UtcDayClock {
  static final long MARGIN_MS = 120_000;
  static final long MAX_SLEEP_MS = 60_000;
  /** After midnight the clock is read for this long, so that a late tick cannot miss the day. */
  static final long AFTER_MIDNIGHT_MS = 1_000;

  private final LongSupplier wall;
  /** A reading of the current UTC day, or 0: read {@code wall}. */
  private volatile long sameDay;

  UtcDayClock(LongSupplier wall) {
    this.wall = wall;
  }

  /** The system clock's, shared by every client and ticked by its one thread. */
  static UtcDayClock system() {
    return SystemTicker.CLOCK;
  }

  /** A time of the current UTC day, in epoch ms. */
  long dayTime() {
    long t = sameDay;
    return t != 0 ? t : wall.getAsLong();
  }

  /** Reads the clock and publishes it, or stops publishing near midnight; returns ms until the next tick. */
  long tick() {
    long now = wall.getAsLong();
    long sinceMidnight = Math.floorMod(now, ExposureTable.DAY_MS);
    long toMidnight = ExposureTable.DAY_MS - sinceMidnight;
    if (toMidnight <= MARGIN_MS) {
      sameDay = 0;
      return toMidnight + AFTER_MIDNIGHT_MS;
    }
    if (sinceMidnight < AFTER_MIDNIGHT_MS) {
      sameDay = 0;
      return AFTER_MIDNIGHT_MS - sinceMidnight;
    }
    sameDay = now == 0 ? 1 : now;
    // A minute at most: a clock set forward or a machine resumed from sleep is seen soon.
    return Math.min(toMidnight - MARGIN_MS, MAX_SLEEP_MS);
  }

  /** Started on first use; a daemon, so it never keeps the JVM alive. */
  private static final class SystemTicker {
    static final UtcDayClock CLOCK = new UtcDayClock(System::currentTimeMillis);

    static {
      CLOCK.tick();
      Thread ticker = new Thread(() -> {
        long sleep = CLOCK.tick();
        while (true) {
          try {
            Thread.sleep(sleep);
          } catch (InterruptedException e) {
            // Nobody else holds this thread: go on ticking.
          }
          sleep = CLOCK.tick();
        }
      }, "arbiter-utc-day");
      ticker.setDaemon(true);
      ticker.start();
    }
  }
}

package dev.arbiter.client;

import java.util.function.BooleanSupplier;

/** Polls a condition; the suite's own timeout, not a wall-clock bound, ends a test that hangs. */
final class Wait {
  private Wait() {}

  static void until(BooleanSupplier condition) throws InterruptedException {
    while (!condition.getAsBoolean()) Thread.sleep(5);
  }
}

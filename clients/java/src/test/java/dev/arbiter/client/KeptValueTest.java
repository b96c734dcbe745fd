package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link KeptValue} keeps each test's answer apart, and none for a test without an id. */
class KeptValueTest {
  @Test
  void keepsEachTestsAnswerApartAndNoneWithoutAnId() throws Exception {
    KeptValue value = new KeptValue("en-US");
    for (int id = 0; id < KeptValue.MAX_TESTS; id++) assertEquals(-1, value.answer(id));
    assertTrue(value.remember(-1, true));
    assertEquals(-1, value.answer(-1));
    // Threads keeping answers at once, every id true when odd: a lost update only loses an
    // answer, so each id reads unknown or its own answer, never another's.
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger wrong = new AtomicInteger();
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      int offset = t;
      threads[t] = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int round = 0; round < 1_000; round++) {
          int id = (round + offset) % KeptValue.MAX_TESTS;
          value.remember(id, id % 2 == 1);
          int known = value.answer(id);
          if (known != -1 && known != id % 2) wrong.incrementAndGet();
        }
      });
      threads[t].start();
    }
    start.countDown();
    for (Thread thread : threads) thread.join();
    assertEquals(0, wrong.get());
    for (int id = 0; id < KeptValue.MAX_TESTS; id++) {
      value.remember(id, id % 2 == 1);
      assertEquals(id % 2, value.answer(id));
    }
    assertFalse(value.remember(KeptValue.MAX_TESTS - 1, false));
  }
}

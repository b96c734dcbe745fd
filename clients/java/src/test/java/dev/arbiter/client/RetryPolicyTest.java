package dev.arbiter.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  private final RetryPolicy policy = new RetryPolicy(3, 500, 8_000, 30_000);

  @Test
  void retriesOnlyWhatMaySucceedUnchanged() {
    for (int s : new int[] {408, 429, 500, 502, 503, 504}) assertTrue(RetryPolicy.isRetryableStatus(s));
    for (int s : new int[] {400, 401, 403, 404, 409, 413, 415, 422}) {
      assertFalse(RetryPolicy.isRetryableStatus(s));
    }
  }

  @Test
  void exponentialBackoffWithJitterAndCap() {
    assertEquals(500, policy.delayMs(1, -1, 0));
    assertEquals(1_000, policy.delayMs(2, -1, 0));
    assertEquals(8_000, policy.delayMs(10, -1, 0));
    // Up to 25 % shorter, never longer.
    assertEquals(375, policy.delayMs(1, -1, 0.999_999), 1);
  }

  @Test
  void retryAfterWinsUpToTheCap() {
    assertEquals(2_000, policy.delayMs(1, 2_000, 0.5));
    assertEquals(30_000, policy.delayMs(1, 120_000, 0.5));
    assertEquals(0, policy.delayMs(1, 0, 0.5));
  }

  @Test
  void parsesRetryAfterSecondsAndHttpDates() {
    long now = 1_700_000_000_000L;
    assertEquals(3_000, RetryPolicy.parseRetryAfter("3", now));
    assertEquals(1_500, RetryPolicy.parseRetryAfter(" 1.5 ", now));
    assertEquals(-1, RetryPolicy.parseRetryAfter(null, now));
    assertEquals(-1, RetryPolicy.parseRetryAfter("-3", now));
    assertEquals(-1, RetryPolicy.parseRetryAfter("soon", now));
    // Tue, 14 Nov 2023 22:13:30 GMT is now + 10 s.
    assertEquals(10_000, RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:13:30 GMT", now));
    assertEquals(0, RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now));
  }
}

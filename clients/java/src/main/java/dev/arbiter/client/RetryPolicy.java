package dev.arbiter.client;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** When to retry and how long to wait: the same rules as the TypeScript and Python clients. */
final class RetryPolicy {
  final int maxAttempts;
  final long baseDelayMs;
  final long maxDelayMs;
  final long retryAfterCapMs;

  RetryPolicy(int maxAttempts, long baseDelayMs, long maxDelayMs, long retryAfterCapMs) {
    this.maxAttempts = Math.max(1, maxAttempts);
    this.baseDelayMs = Math.max(0, baseDelayMs);
    this.maxDelayMs = Math.max(0, maxDelayMs);
    this.retryAfterCapMs = Math.max(0, retryAfterCapMs);
  }

  /**
   * Only answers that may succeed unchanged are retried: a timeout (408), a throttle (429) or a
   * server fault (5xx). Any other 4xx would fail the same way again.
   */
  static boolean isRetryableStatus(int status) {
    return status == 408 || status == 429 || status >= 500;
  }

  /**
   * Milliseconds before retry number {@code retry} (1 = the first retry). A server's
   * {@code Retry-After} wins, up to the cap; otherwise capped exponential backoff, shortened by
   * up to 25 % at random so that clients failing together do not come back together.
   * {@code random} is in [0, 1); {@code retryAfterMs} is negative when there was none.
   */
  long delayMs(int retry, long retryAfterMs, double random) {
    if (retryAfterMs >= 0) return Math.min(retryAfterMs, retryAfterCapMs);
    double exponential = Math.min(baseDelayMs * Math.pow(2, retry - 1), maxDelayMs);
    return Math.round(exponential * (1 - ArbiterDefaults.RETRY_JITTER * random));
  }

  /**
   * {@code Retry-After} as delta-seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds
   * from {@code nowMs}; -1 when absent or unreadable.
   */
  static long parseRetryAfter(String value, long nowMs) {
    if (value == null) return -1;
    String trimmed = value.trim();
    if (trimmed.matches("\\d+(\\.\\d+)?")) {
      return Math.round(Double.parseDouble(trimmed) * 1_000);
    }
    try {
      ZonedDateTime date = ZonedDateTime.parse(trimmed, DateTimeFormatter.RFC_1123_DATE_TIME);
      return Math.max(0, date.toInstant().toEpochMilli() - nowMs);
    } catch (DateTimeParseException unreadable) {
      return -1;
    }
  }
}

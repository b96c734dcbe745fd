import { RETRY_JITTER } from './constants.ts';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  retryAfterCapMs: number;
}

/**
 * Only answers that may succeed unchanged are retried: a timeout (408), a throttle (429) or a
 * server fault (5xx). Any other 4xx would fail the same way again.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Milliseconds before retry number `retry` (1 = the first retry). A server's `Retry-After` wins,
 * up to the cap; otherwise capped exponential backoff, shortened by up to 25 % at random so that
 * many clients failing together do not come back together. `random` is in [0, 1).
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | null,
  policy: RetryPolicy,
  random: number,
): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, policy.retryAfterCapMs);
  const exponential = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  return exponential * (1 - RETRY_JITTER * random);
}

/** `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1_000;
  // Date.parse reads '-3' as a year; an HTTP date always names its weekday and month.
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}

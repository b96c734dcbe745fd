import { describe, expect, it } from 'vitest';
import { RETRY_JITTER } from '../src/internal/constants.ts';
import { isRetryableStatus, parseRetryAfter, retryDelayMs } from '../src/internal/retry-policy.ts';

const policy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 8_000, retryAfterCapMs: 30_000 };

describe('which answers are retried', () => {
  it('retries 408, 429 and 5xx only', () => {
    for (const s of [408, 429, 500, 502, 503, 504, 599]) expect(isRetryableStatus(s)).toBe(true);
    for (const s of [200, 202, 304, 400, 401, 403, 404, 409, 413, 422]) {
      expect(isRetryableStatus(s)).toBe(false);
    }
  });
});

describe('retry delay', () => {
  it('doubles per retry up to the cap', () => {
    expect(retryDelayMs(1, null, policy, 0)).toBe(500);
    expect(retryDelayMs(2, null, policy, 0)).toBe(1_000);
    expect(retryDelayMs(4, null, policy, 0)).toBe(4_000);
    expect(retryDelayMs(5, null, policy, 0)).toBe(8_000);
    expect(retryDelayMs(12, null, policy, 0)).toBe(8_000);
  });

  it('removes up to the jitter share at random', () => {
    expect(retryDelayMs(2, null, policy, 0.999_999)).toBeCloseTo(1_000 * (1 - RETRY_JITTER), 2);
    expect(retryDelayMs(2, null, policy, 0.5)).toBe(1_000 * (1 - RETRY_JITTER / 2));
  });

  it('honours Retry-After up to its cap', () => {
    expect(retryDelayMs(1, 2_000, policy, 0.5)).toBe(2_000);
    expect(retryDelayMs(1, 0, policy, 0.5)).toBe(0);
    expect(retryDelayMs(1, 3_600_000, policy, 0.5)).toBe(30_000);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1_500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });
  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-3', now)).toBeNull();
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyRateWindows, rateLimitedProblem } from '../../src/http/key-rate-limit.ts';

// The counting @fastify/rate-limit's LocalStore does, which the assign route's hook shares.
describe('KeyRateWindows', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-22T12:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('counts each key in a fixed window whose time left shrinks, then starts again', () => {
    const windows = new KeyRateWindows();
    expect(windows.hit('a', 60_000)).toMatchObject({ current: 1, ttl: 60_000 });
    vi.advanceTimersByTime(15_000);
    expect(windows.hit('a', 60_000)).toMatchObject({ current: 2, ttl: 45_000 });
    expect(windows.hit('b', 60_000)).toMatchObject({ current: 1, ttl: 60_000 });
    expect(windows.hit('a', 60_000)).toMatchObject({ current: 3, ttl: 45_000 });
    vi.advanceTimersByTime(45_000);
    expect(windows.hit('a', 60_000)).toMatchObject({ current: 1, ttl: 60_000 });
  });

  it('forgets the least recently used key past 5,000, not the oldest one used again', () => {
    const windows = new KeyRateWindows();
    for (let i = 0; i < 5000; i++) windows.hit(`k${i}`, 60_000);
    windows.hit('k0', 60_000); // k0 is now the most recent; k1 the least
    windows.hit('new', 60_000);
    expect(windows.hit('k0', 60_000).current).toBe(3);
    expect(windows.hit('k2', 60_000).current).toBe(2);
    expect(windows.hit('k1', 60_000).current).toBe(1);
  });

  it('serves the plugin through its store interface, the same instance it was built for', () => {
    const windows = new KeyRateWindows();
    const Store = windows.asStore();
    const store = new Store({});
    expect(store).toBe(windows);
    windows.hit('shared', 60_000);
    let counted = 0;
    windows.incr(
      'shared',
      (_error, result) => {
        counted = result.current;
      },
      60_000,
    );
    expect(counted).toBe(2);
  });
});

describe('rateLimitedProblem', () => {
  it('words the wait as the plugin does (@lukeed/ms, long form)', () => {
    const detail = (ttlMs: number) => rateLimitedProblem(40, ttlMs).detail;
    expect(detail(400)).toBe('More than 40 requests per minute with this key; retry in 1 second');
    expect(detail(2_500)).toBe(
      'More than 40 requests per minute with this key; retry in 3 seconds',
    );
    expect(detail(60_000)).toBe(
      'More than 40 requests per minute with this key; retry in 1 minute',
    );
  });
});

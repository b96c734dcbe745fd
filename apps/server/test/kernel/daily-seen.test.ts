import { describe, expect, it } from 'vitest';
import { DailySeen } from '../../src/kernel/daily-seen.ts';

const at = (iso: string) => new Date(iso);

describe('DailySeen', () => {
  it('admits a key once a UTC day, and again on the next day', () => {
    const seen = new DailySeen(10);
    expect(seen.firstToday('a', at('2026-03-01T00:00:00Z'))).toBe(true);
    expect(seen.firstToday('a', at('2026-03-01T23:59:59.999Z'))).toBe(false);
    expect(seen.day).toBe('2026-03-01');
    expect(seen.firstToday('a', at('2026-03-02T00:00:00Z'))).toBe(true);
    expect(seen.day).toBe('2026-03-02');
  });

  it('starts over when a clock set back leaves the day', () => {
    const seen = new DailySeen(10);
    seen.firstToday('a', at('2026-03-02T10:00:00Z'));
    expect(seen.firstToday('a', at('2026-03-01T10:00:00Z'))).toBe(true);
    expect(seen.day).toBe('2026-03-01');
  });

  it('forgets everyone when full, so memory stays bounded', () => {
    const seen = new DailySeen(2);
    const now = at('2026-03-01T12:00:00Z');
    seen.firstToday('a', now);
    seen.firstToday('b', now);
    expect(seen.firstToday('a', now)).toBe(true);
  });

  it('counts a forgotten key again', () => {
    const seen = new DailySeen(10);
    const now = at('2026-03-01T12:00:00Z');
    seen.firstToday('a', now);
    seen.forget('a');
    expect(seen.firstToday('a', now)).toBe(true);
  });
});

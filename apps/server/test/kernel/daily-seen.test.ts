import { describe, expect, it } from 'vitest';
import { DailySeen } from '../../src/kernel/daily-seen.ts';

const at = (iso: string) => new Date(iso);

describe('DailySeen', () => {
  it('admits a key once a UTC day, and again on the next day', () => {
    const seen = new DailySeen(10);
    expect(seen.firstToday('exp', 'a', at('2026-03-01T00:00:00Z'))).toBe(true);
    expect(seen.firstToday('exp', 'a', at('2026-03-01T23:59:59.999Z'))).toBe(false);
    expect(seen.day).toBe('2026-03-01');
    expect(seen.firstToday('exp', 'a', at('2026-03-02T00:00:00Z'))).toBe(true);
    expect(seen.day).toBe('2026-03-02');
  });

  it('starts over when a clock set back leaves the day', () => {
    const seen = new DailySeen(10);
    seen.firstToday('exp', 'a', at('2026-03-02T10:00:00Z'));
    expect(seen.firstToday('exp', 'a', at('2026-03-01T10:00:00Z'))).toBe(true);
    expect(seen.day).toBe('2026-03-01');
  });

  it('forgets everyone when full, so memory stays bounded', () => {
    const seen = new DailySeen(2);
    const now = at('2026-03-01T12:00:00Z');
    seen.firstToday('exp', 'a', now);
    seen.firstToday('exp', 'b', now);
    expect(seen.firstToday('exp', 'a', now)).toBe(true);
  });

  it('counts a forgotten key again', () => {
    const seen = new DailySeen(10);
    const now = at('2026-03-01T12:00:00Z');
    seen.firstToday('exp', 'a', now);
    seen.forget('exp', 'a');
    expect(seen.firstToday('exp', 'a', now)).toBe(true);
  });

  it('tells keys apart by scope, and counts a key again when its value changes', () => {
    const seen = new DailySeen(10);
    const now = at('2026-03-01T12:00:00Z');
    expect(seen.firstToday('exp-1', 'a', now, 'control')).toBe(true);
    expect(seen.firstToday('exp-2', 'a', now, 'control')).toBe(true);
    expect(seen.firstToday('exp-1', 'a', now, 'control')).toBe(false);
    expect(seen.firstToday('exp-1', 'a', now, 'treatment')).toBe(true);
    expect(seen.firstToday('exp-1', 'a', now, 'treatment')).toBe(false);
  });
});

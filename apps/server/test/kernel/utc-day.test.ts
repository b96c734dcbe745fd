import { describe, expect, it } from 'vitest';
import { DAY_MS, previousUtcDay, startOfUtcDay, utcDay } from '../../src/kernel/utc-day.ts';

describe('UTC days', () => {
  it('name the UTC day of an instant, whatever its offset was written in', () => {
    expect(utcDay(new Date('2026-11-23T00:00:00.000Z'))).toBe('2026-11-23');
    expect(utcDay(new Date('2026-11-23T23:59:59.999Z'))).toBe('2026-11-23');
    expect(utcDay(new Date('2026-11-24T01:30:00+02:00'))).toBe('2026-11-23');
  });

  it('give the previous day across a month, a year and a leap day', () => {
    expect(previousUtcDay(new Date('2026-11-22T00:15:00Z'))).toBe('2026-11-21');
    expect(previousUtcDay(new Date('2026-03-01T00:00:00Z'))).toBe('2026-02-28');
    expect(previousUtcDay(new Date('2028-03-01T12:00:00Z'))).toBe('2028-02-29');
    expect(previousUtcDay(new Date('2027-01-01T00:00:00Z'))).toBe('2026-12-31');
  });

  it('start at UTC midnight, a whole number of days from the epoch', () => {
    const start = startOfUtcDay(new Date('2026-11-23T17:45:12.345Z'));
    expect(start.toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(start.getTime() % DAY_MS).toBe(0);
    expect(startOfUtcDay(start).getTime()).toBe(start.getTime());
  });
});

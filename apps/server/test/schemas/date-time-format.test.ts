import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateTimeFormat, fullDateTime } from '../../src/schemas/date-time-format.ts';

const two = (n: number) => String(n).padStart(2, '0');

/** `toISOString`'s shape with every field free, so impossible days and times come up often. */
const isoShaped = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 99 }),
    day: fc.integer({ min: 0, max: 99 }),
    hour: fc.integer({ min: 0, max: 99 }),
    minute: fc.integer({ min: 0, max: 99 }),
    second: fc.integer({ min: 0, max: 99 }),
    ms: fc.integer({ min: 0, max: 999 }),
  })
  .map(
    (t) =>
      `${String(t.year).padStart(4, '0')}-${two(t.month)}-${two(t.day)}T${two(t.hour)}:${two(t.minute)}:${two(t.second)}.${String(t.ms).padStart(3, '0')}Z`,
  );

const realInstant = fc
  .date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z') })
  .filter((d) => !Number.isNaN(d.getTime()))
  .map((d) => d.toISOString());

describe('the date-time format', () => {
  it("answers as ajv-formats' full check on toISOString's shape, impossible fields included", () => {
    fc.assert(
      fc.property(fc.oneof(isoShaped, realInstant), (value) => {
        expect(dateTimeFormat.validate(value)).toBe(fullDateTime(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it('answers as the full check on other spellings and on any text', () => {
    const spelled = fc
      .tuple(realInstant, fc.constantFrom('+02:00', '-0530', 'z', '', '+24:00'), fc.boolean())
      .map(([iso, zone, lower]) => {
        const text = zone === '' ? iso : `${iso.slice(0, -1)}${zone}`;
        return lower ? text.toLowerCase() : text.replace('.000', '');
      });
    fc.assert(
      fc.property(fc.oneof(spelled, fc.string(), fc.string({ unit: 'binary' })), (value) => {
        expect(dateTimeFormat.validate(value)).toBe(fullDateTime(value));
      }),
      { numRuns: 5_000 },
    );
  });

  it('takes the days and seconds the calendar has, and refuses those it has not', () => {
    const cases: Array<[string, boolean]> = [
      ['2024-02-29T12:00:00.000Z', true],
      ['2023-02-29T12:00:00.000Z', false],
      ['2000-02-29T00:00:00.000Z', true],
      ['1900-02-29T00:00:00.000Z', false],
      ['2026-04-31T00:00:00.000Z', false],
      ['2026-13-01T00:00:00.000Z', false],
      ['2026-00-10T00:00:00.000Z', false],
      ['2026-11-27T24:00:00.000Z', false],
      ['2016-12-31T23:59:60.000Z', true],
      ['2016-12-31T22:59:60.000Z', false],
    ];
    for (const [value, valid] of cases) {
      expect({ value, valid: dateTimeFormat.validate(value) }).toEqual({ value, valid });
      expect({ value, valid: fullDateTime(value) }).toEqual({ value, valid });
    }
  });
});

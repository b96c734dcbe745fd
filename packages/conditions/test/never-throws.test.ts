import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCondition, evalCondition } from '../src/index.ts';
import { groups, json, readableCondition } from './arbitraries.ts';

describe('evalCondition on random JSON', () => {
  it('never throws, and matches no one when the condition is unreadable', () => {
    fc.assert(
      fc.property(json.value, json.value, groups, (condition, attributes, saved) => {
        const result = evalCondition(attributes, condition, saved);
        expect(typeof result).toBe('boolean');
        if (checkCondition(condition).length > 0) expect(result).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on conditions that are readable', () => {
    // Random conditions are mostly unreadable; these are built from readable parts only.
    fc.assert(
      fc.property(readableCondition.c, json.value, groups, (c, attributes, saved) => {
        expect(checkCondition(c)).toEqual([]);
        expect(typeof evalCondition(attributes, c, saved)).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('does not throw on a condition nested deeper than the stack', () => {
    let deep: Record<string, unknown> = { a: 1 };
    for (let i = 0; i < 100_000; i++) deep = { $not: deep };
    expect(evalCondition({ a: 1 }, deep)).toBe(false);
    expect(checkCondition(deep)).toEqual([{ pointer: '', message: expect.any(String) }]);
  });
});

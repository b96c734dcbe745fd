import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCondition, evalCondition, VALUE_OPERATORS } from '../src/index.ts';

// Keys that reach the evaluator's interesting paths: operators (known, unknown and logical),
// dot paths, inherited property names, and plain fields.
const key = fc.oneof(
  fc.constantFrom(...VALUE_OPERATORS, '$and', '$or', '$nor', '$foo', '$', 'a', 'a.b', 'b'),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'length', '0', ''),
  fc.string({ maxLength: 4 }),
);

const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string({ maxLength: 6 }),
    fc.constantFrom('(', '[a', '1.2.3', 'v1.0.0-rc.1+b', 'string', 'array', '^a', '*'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));

const groups = fc.dictionary(fc.constantFrom('g', 'h', 'constructor'), json.value, { maxKeys: 3 });

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
    const operand = fc.oneof(
      fc.record({ $gt: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })) }),
      fc.record({ $in: fc.array(json.value, { maxLength: 3 }) }),
      fc.record({ $regexi: fc.constantFrom('^a', 'b$', '') }),
      fc.record({ $vgte: fc.constantFrom('1.2.3', 'v2', '0') }),
      fc.record({ $elemMatch: fc.record({ a: fc.integer() }) }),
      fc.record({ $size: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ $inGroup: fc.constantFrom('g', 'constructor') }),
      fc.record({ $type: fc.constantFrom('string', 'array', 'null') }),
      json.value.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
    );
    const condition = fc.letrec<{ c: Record<string, unknown> }>((tie) => ({
      c: fc.oneof(
        { depthSize: 'small' },
        fc.dictionary(fc.constantFrom('a', 'a.b', 'b', 'c'), operand, { maxKeys: 3 }),
        fc.record({ $or: fc.array(tie('c'), { maxLength: 3 }) }),
        fc.record({ $not: tie('c') }),
      ),
    }));
    fc.assert(
      fc.property(condition.c, json.value, groups, (c, attributes, saved) => {
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

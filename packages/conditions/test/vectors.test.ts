import { describe, expect, it } from 'vitest';
import { evalCondition, VALUE_OPERATORS } from '../src/index.ts';
import { cases } from './load-vectors.ts';

describe.each([
  ['conditions.json', cases('conditions.json')],
  ['growthbook/eval-condition.json', cases('growthbook/eval-condition.json')],
])('%s', (_file, all) => {
  it('has cases', () => {
    expect(all.length).toBeGreaterThan(200);
  });

  it.each(all.map((c, i) => [i, ...c] as const))(
    '#%i %s',
    (_i, _name, condition, attributes, expected, groups) => {
      expect(evalCondition(attributes, condition, groups)).toBe(expected);
    },
  );
});

describe('conditions.json', () => {
  const all = cases('conditions.json');

  it('names each case once', () => {
    // GrowthBook's file repeats two names ("$not - pass/fail"); ours must not, so that a failure
    // in any of the four evaluators names one case.
    expect(new Set(all.map((c) => c[0])).size).toBe(all.length);
  });

  it('uses every operator, each in a case that passes and in one that fails', () => {
    const seen = { true: new Set<string>(), false: new Set<string>() };
    const collect = (value: unknown, into: Set<string>): void => {
      if (Array.isArray(value)) for (const item of value) collect(item, into);
      else if (typeof value === 'object' && value !== null) {
        for (const [key, item] of Object.entries(value)) {
          if (key.startsWith('$')) into.add(key);
          collect(item, into);
        }
      }
    };
    for (const [, condition, , expected] of all) collect(condition, seen[`${expected}`]);
    for (const operator of [...VALUE_OPERATORS, '$and', '$or', '$nor']) {
      expect(seen.true, operator).toContain(operator);
      expect(seen.false, operator).toContain(operator);
    }
  });
});

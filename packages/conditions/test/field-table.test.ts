import { describe, expect, it } from 'vitest';
import { FieldTable, fieldsMatcher } from '../src/index.ts';
import { cases } from './load-vectors.ts';

describe.each([
  ['conditions.json', cases('conditions.json')],
  ['growthbook/eval-condition.json', cases('growthbook/eval-condition.json')],
])('%s by field index', (_file, all) => {
  it.each(all.map((c, i) => [i, ...c] as const))(
    '#%i %s',
    (_i, _name, condition, attributes, expected, groups) => {
      const table = new FieldTable();
      const matches = fieldsMatcher(condition, table);
      expect(matches).not.toBeNull();
      const values = table.resolve(attributes);
      expect(values).not.toBeNull();
      expect(matches?.(values as unknown[], groups)).toBe(expected);
    },
  );

  it('one table shared by every condition answers as a table each', () => {
    const table = new FieldTable();
    const matchers = all.map(([, condition]) => fieldsMatcher(condition, table));
    const answers = all.map(([, , attributes, , groups], i) =>
      matchers[i]?.(table.resolve(attributes) as unknown[], groups),
    );
    expect(answers).toEqual(all.map((c) => c[3]));
  });
});

describe('FieldTable', () => {
  it('numbers each distinct path once, $inGroup fields and nested conditions included', () => {
    const table = new FieldTable();
    fieldsMatcher({ plan: 'pro', $or: [{ 'app.version': { $vgte: '2.0' } }] }, table);
    fieldsMatcher({ plan: { $ne: 'free' }, id: { $inGroup: 'beta' } }, table);
    expect(table.keys).toEqual(['plan', 'app.version', 'id']);
    expect(table.size).toBe(3);
  });

  it('resolves missing fields as null and refuses attributes whose read throws', () => {
    const table = new FieldTable();
    table.indexOf('a.b');
    table.indexOf('c');
    expect(table.resolve({ a: { b: 0 } })).toEqual([0, null]);
    const throwing = {
      get c() {
        throw new Error('no');
      },
    };
    expect(table.resolve(throwing)).toBeNull();
  });

  it('an unreadable condition matches no one', () => {
    const matches = fieldsMatcher({ plan: { $bogus: 1 } }, new FieldTable());
    expect(matches?.([], {})).toBe(false);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type ConditionEngine,
  conditionMatcher,
  FieldTable,
  fieldsMatcher,
  generatedEngine,
  interpreter,
  preferredEngine,
} from '../src/index.ts';
import { cases } from './load-vectors.ts';

const all = [...cases('conditions.json'), ...cases('growthbook/eval-condition.json')];
const ENGINES: Array<[string, ConditionEngine]> = [
  ['the interpreter', interpreter],
  ['the generated engine', generatedEngine],
];

describe('the engine seam', () => {
  it.each(ENGINES)('%s passes every shared case, plain and by field index', (_, engine) => {
    const wrong: string[] = [];
    for (const [name, condition, attributes, expected, groups] of all) {
      const plain = conditionMatcher(condition, engine)(attributes, groups);
      const table = new FieldTable();
      const byIndex = fieldsMatcher(condition, table, engine);
      const values = byIndex === null ? null : table.resolve(attributes);
      const indexed = byIndex === null || values === null ? plain : byIndex(values, groups);
      if (plain !== expected || indexed !== expected) wrong.push(name);
    }
    expect(all.length).toBeGreaterThan(600);
    expect(wrong).toEqual([]);
  });

  it('reads by field index only in the fast path; the interpreter leaves it to the caller', () => {
    expect(fieldsMatcher({ a: 1 }, new FieldTable(), interpreter)).toBeNull();
    expect(fieldsMatcher({ a: 1 }, new FieldTable(), generatedEngine)).not.toBeNull();
    expect(preferredEngine()).toBe(generatedEngine);
  });

  it('keeps the core free of the fast path: only the selection modules import fast/', () => {
    const src = new URL('../src/', import.meta.url);
    const importers = readdirSync(src)
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => readFileSync(new URL(file, src), 'utf8').includes("from './fast/"));
    expect(importers.sort()).toEqual(['evaluate-condition.ts', 'index.ts']);
  });
});

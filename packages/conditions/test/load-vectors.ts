// The shared condition vectors (testdata/conditions.json and GrowthBook's eval-condition.json),
// loaded for every test of the evaluator that reads them.
import { readFileSync } from 'node:fs';
import type { SavedGroups } from '../src/index.ts';

/** [name, condition, attributes, expected] or with a fifth element, the saved groups by key. */
export type Case = [string, unknown, unknown, boolean, SavedGroups?];

/**
 * One file's `evalCondition` cases, read in place, as every other evaluator reads them;
 * JSON.parse keeps a `__proto__` key an ordinary own key, as a client's config parser does.
 */
export function cases(file: string): Case[] {
  const url = new URL(`../../../testdata/${file}`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { evalCondition: Case[] }).evalCondition;
}

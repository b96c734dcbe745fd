import { compileCondition } from './compile-condition.ts';
import { checkCondition } from './condition-check.ts';
import type { ConditionEngine } from './engine.ts';
import { generatedEngine } from './fast/generated-engine.ts';
import type { FieldTable } from './field-table.ts';
import { isPlainObject } from './json-values.ts';
import type { SavedGroups } from './membership.ts';
import { innerCache } from './nested-cache.ts';
import type { Predicate } from './value-tests.ts';

export type { SavedGroups } from './membership.ts';

// A condition is checked and compiled once, by an engine (engine.ts): into a generated function
// where the realm allows `new Function`, else (or if generation fails) into the interpreter's
// tests. This module takes the generated engine for `evalCondition` and by default; a client
// passes the engine it chose when it was built.
const NO_ONE: Predicate = () => false;
const NO_GROUPS: SavedGroups = Object.freeze({});
const compiled = new WeakMap<ConditionEngine, WeakMap<object, Predicate>>();

/**
 * Whether the attributes satisfy the condition: GrowthBook's condition language, with the
 * semantics of docs/wire-format.md#the-condition-language-targeting. Never throws: a condition
 * that `checkCondition` refuses, or one that is not an object, matches no one, whatever the
 * attributes. A condition object is compiled once and remembered, and a saved-groups object's
 * lookup sets likewise: neither may be changed after its first evaluation (a new config brings
 * new objects).
 */
export function evalCondition(
  attributes: unknown,
  condition: unknown,
  savedGroups?: SavedGroups | null,
): boolean {
  return run(predicateOf(condition), attributes, savedGroups);
}

/**
 * `evalCondition` with the condition fixed: it is checked and compiled here, once, so each call
 * costs only the clauses (no lookup of the compiled form). What a client keeps per experiment.
 */
export function conditionMatcher(
  condition: unknown,
  engine: ConditionEngine = generatedEngine,
): (attributes: unknown, savedGroups?: SavedGroups | null) => boolean {
  const predicate = predicateOf(condition, engine);
  return (attributes, savedGroups) => run(predicate, attributes, savedGroups);
}

/**
 * `conditionMatcher` reading the fields by index: the matcher takes the values
 * `table.resolve(attributes)` gives, not the attributes, and answers as `conditionMatcher` does
 * for those attributes. The fields the condition reads are numbered in `table` here. Null where
 * code cannot be generated (a Content-Security-Policy without 'unsafe-eval'): the caller then
 * evaluates the attributes themselves.
 */
export function fieldsMatcher(
  condition: unknown,
  table: FieldTable,
  engine: ConditionEngine = generatedEngine,
): ((values: readonly unknown[], savedGroups?: SavedGroups | null) => boolean) | null {
  let predicate: Predicate | null;
  try {
    predicate =
      isPlainObject(condition) && checkCondition(condition).length === 0
        ? engine.predicate(condition, table)
        : NO_ONE;
  } catch {
    predicate = NO_ONE; // only a condition nested deeper than the stack, as predicateOf
  }
  if (predicate === null) return null;
  const matches = predicate;
  return (values, savedGroups) => run(matches, values, savedGroups);
}

function predicateOf(condition: unknown, engine: ConditionEngine = generatedEngine): Predicate {
  if (!isPlainObject(condition)) return NO_ONE;
  const byCondition = innerCache(compiled, engine, WeakMap<object, Predicate>);
  let predicate = byCondition.get(condition);
  if (predicate === undefined) {
    try {
      predicate =
        checkCondition(condition).length === 0
          ? (engine.predicate(condition, null) ?? compileCondition(condition))
          : NO_ONE;
    } catch {
      predicate = NO_ONE; // only a condition nested deeper than the stack
    }
    byCondition.set(condition, predicate);
  }
  return predicate;
}

function run(
  predicate: Predicate,
  attributes: unknown,
  savedGroups: SavedGroups | null | undefined,
): boolean {
  try {
    return predicate(attributes, savedGroups ?? NO_GROUPS);
  } catch {
    // Only attributes nested deeper than the stack get here.
    return false;
  }
}

import { checkCondition } from './condition-check.ts';
import {
  compare,
  isPlainObject,
  numberForm,
  sameValue,
  stringForm,
  truthy,
} from './json-values.ts';
import { isOperatorObject, type ValueOperator } from './operators.ts';
import { compilePattern } from './regex-cache.ts';
import { paddedVersionString } from './version-string.ts';

/** Saved groups by key: the values `$inGroup` looks a user's attribute up in. */
export type SavedGroups = Readonly<Record<string, unknown>>;

// Whether a condition object is readable, remembered per object: the config's conditions are
// evaluated again and again.
const readable = new WeakMap<object, boolean>();

/**
 * Whether the attributes satisfy the condition: GrowthBook's condition language, with the
 * semantics of docs/wire-format.md#the-condition-language-targeting. Never throws: a condition
 * that `checkCondition` refuses, or one that is not an object, matches no one, whatever the
 * attributes. A condition object is read once and remembered, so it must not be changed after
 * its first evaluation.
 */
export function evalCondition(
  attributes: unknown,
  condition: unknown,
  savedGroups?: SavedGroups | null,
): boolean {
  if (!isPlainObject(condition)) return false;
  let ok = readable.get(condition);
  if (ok === undefined) {
    ok = checkCondition(condition).length === 0;
    readable.set(condition, ok);
  }
  if (!ok) return false;
  try {
    return matches(attributes, condition, savedGroups ?? {});
  } catch {
    // Only a condition or attributes nested deeper than the stack get here.
    return false;
  }
}

function matches(
  attributes: unknown,
  condition: Record<string, unknown>,
  groups: SavedGroups,
): boolean {
  for (const [key, value] of Object.entries(condition)) {
    switch (key) {
      case '$and':
        if (!(value as Record<string, unknown>[]).every((c) => matches(attributes, c, groups)))
          return false;
        break;
      case '$or':
        if (!anyMatches(attributes, value as Record<string, unknown>[], groups)) return false;
        break;
      case '$nor':
        if (anyMatches(attributes, value as Record<string, unknown>[], groups)) return false;
        break;
      case '$not':
        if (matches(attributes, value as Record<string, unknown>, groups)) return false;
        break;
      default:
        if (!valueMatches(value, readPath(attributes, key), groups, false)) return false;
    }
  }
  return true;
}

// An empty $or passes (and so an empty $nor fails), as in GrowthBook.
function anyMatches(
  attributes: unknown,
  conditions: Record<string, unknown>[],
  groups: SavedGroups,
): boolean {
  return conditions.length === 0 || conditions.some((c) => matches(attributes, c, groups));
}

/** The value at a dot path, through JSON objects' own keys only; null when missing. */
function readPath(attributes: unknown, path: string): unknown {
  let current = attributes;
  for (const part of path.split('.')) {
    if (!isPlainObject(current) || !Object.hasOwn(current, part)) return null;
    current = current[part];
  }
  return current === undefined ? null : current;
}

/** A condition value against an attribute value: shorthand equality or operators. */
function valueMatches(
  expected: unknown,
  actual: unknown,
  groups: SavedGroups,
  insensitive: boolean,
): boolean {
  switch (typeof expected) {
    case 'string': {
      const text = stringForm(actual);
      if (text === undefined) return false;
      return insensitive ? text.toLowerCase() === expected.toLowerCase() : text === expected;
    }
    case 'number':
      return numberForm(actual) === expected;
    case 'boolean':
      return actual !== null && actual !== undefined && truthy(actual) === expected;
  }
  if (isPlainObject(expected) && isOperatorObject(expected)) {
    for (const [operator, operand] of Object.entries(expected)) {
      if (!operatorMatches(operator as ValueOperator, actual, operand, groups)) return false;
    }
    return true;
  }
  return sameValue(actual, expected);
}

function operatorMatches(
  operator: ValueOperator,
  actual: unknown,
  expected: unknown,
  groups: SavedGroups,
): boolean {
  switch (operator) {
    case '$eq':
      return sameValue(actual, expected);
    case '$ne':
      return !sameValue(actual, expected);
    case '$lt':
      return compare(actual, expected) < 0;
    case '$lte':
      return compare(actual, expected) <= 0;
    case '$gt':
      return compare(actual, expected) > 0;
    case '$gte':
      return compare(actual, expected) >= 0;
    case '$veq':
      return paddedVersionString(actual) === paddedVersionString(expected);
    case '$vne':
      return paddedVersionString(actual) !== paddedVersionString(expected);
    case '$vlt':
      return paddedVersionString(actual) < paddedVersionString(expected);
    case '$vlte':
      return paddedVersionString(actual) <= paddedVersionString(expected);
    case '$vgt':
      return paddedVersionString(actual) > paddedVersionString(expected);
    case '$vgte':
      return paddedVersionString(actual) >= paddedVersionString(expected);
    case '$in':
      return isIn(actual, expected as unknown[], false);
    case '$nin':
      return !isIn(actual, expected as unknown[], false);
    case '$ini':
      return isIn(actual, expected as unknown[], true);
    case '$nini':
      return !isIn(actual, expected as unknown[], true);
    case '$inGroup':
      return isIn(actual, groupValues(groups, expected as string), false);
    case '$notInGroup':
      return !isIn(actual, groupValues(groups, expected as string), false);
    case '$all':
      return containsAll(actual, expected as unknown[], groups, false);
    case '$alli':
      return containsAll(actual, expected as unknown[], groups, true);
    case '$exists':
      return (actual !== null && actual !== undefined) === expected;
    case '$type':
      return typeName(actual) === expected;
    case '$size':
      return Array.isArray(actual) && valueMatches(expected, actual.length, groups, false);
    case '$elemMatch':
      return elementMatches(actual, expected as Record<string, unknown>, groups);
    case '$not':
      return !valueMatches(expected, actual, groups, false);
    case '$regex':
    case '$regexi': {
      // Unreadable patterns never get here; null, arrays and objects have no text to search.
      const text = stringForm(actual);
      if (text === undefined) return false;
      return compilePattern(expected as string, operator === '$regexi')?.test(text) ?? false;
    }
  }
}

function fold(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}

// An array attribute is in the list when any of its elements is.
function isIn(actual: unknown, list: readonly unknown[], insensitive: boolean): boolean {
  const one = insensitive
    ? (value: unknown) => list.some((item) => sameValue(fold(value), fold(item)))
    : (value: unknown) => list.some((item) => sameValue(value, item));
  return Array.isArray(actual) ? actual.some(one) : one(actual);
}

function groupValues(groups: SavedGroups, key: string): readonly unknown[] {
  if (!Object.hasOwn(groups, key)) return [];
  const values = groups[key];
  return Array.isArray(values) ? values : [];
}

function containsAll(
  actual: unknown,
  expected: readonly unknown[],
  groups: SavedGroups,
  insensitive: boolean,
): boolean {
  if (!Array.isArray(actual)) return false;
  return expected.every((want) =>
    actual.some((element) => valueMatches(want, element, groups, insensitive)),
  );
}

function elementMatches(
  actual: unknown,
  expected: Record<string, unknown>,
  groups: SavedGroups,
): boolean {
  if (!Array.isArray(actual)) return false;
  if (isOperatorObject(expected)) {
    return actual.some((element) => valueMatches(expected, element, groups, false));
  }
  return actual.some((element) => matches(element, expected, groups));
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

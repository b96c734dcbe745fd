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

// A condition is compiled once into a tree of closures: the operands' work (version padding,
// pattern compilation, lookup sets) is done then, not per user, so that evaluating a few
// clauses costs about as much as the bucketing hash (the speed bar for assign).
type Predicate = (attributes: unknown, groups: SavedGroups) => boolean;
type ValueTest = (value: unknown, groups: SavedGroups) => boolean;

const NO_ONE: Predicate = () => false;
const EVERYONE: Predicate = () => true;
const NO_GROUPS: SavedGroups = Object.freeze({});
const compiled = new WeakMap<object, Predicate>();

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
): (attributes: unknown, savedGroups?: SavedGroups | null) => boolean {
  const predicate = predicateOf(condition);
  return (attributes, savedGroups) => run(predicate, attributes, savedGroups);
}

function predicateOf(condition: unknown): Predicate {
  if (!isPlainObject(condition)) return NO_ONE;
  let predicate = compiled.get(condition);
  if (predicate === undefined) {
    try {
      predicate = checkCondition(condition).length === 0 ? compileCondition(condition) : NO_ONE;
    } catch {
      predicate = NO_ONE; // only a condition nested deeper than the stack
    }
    compiled.set(condition, predicate);
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

function all<T extends (a: unknown, g: SavedGroups) => boolean>(tests: T[]): T | Predicate {
  if (tests.length === 0) return EVERYONE;
  if (tests.length === 1) return tests[0]!;
  return (value, groups) => {
    for (const test of tests) if (!test(value, groups)) return false;
    return true;
  };
}

function compileCondition(condition: Record<string, unknown>): Predicate {
  const parts: Predicate[] = [];
  for (const [key, value] of Object.entries(condition)) {
    switch (key) {
      case '$and':
        parts.push(all((value as Record<string, unknown>[]).map(compileCondition)));
        break;
      case '$or':
        parts.push(any((value as Record<string, unknown>[]).map(compileCondition)));
        break;
      case '$nor': {
        const either = any((value as Record<string, unknown>[]).map(compileCondition));
        parts.push((attributes, groups) => !either(attributes, groups));
        break;
      }
      case '$not': {
        const inner = compileCondition(value as Record<string, unknown>);
        parts.push((attributes, groups) => !inner(attributes, groups));
        break;
      }
      default: {
        const path = key.split('.');
        const test = compileValue(value, false);
        if (path.length === 1) {
          // Most fields are top-level attributes: read without walking a path.
          parts.push((attributes, groups) => test(readField(attributes, key), groups));
        } else {
          parts.push((attributes, groups) => test(readPath(attributes, path), groups));
        }
      }
    }
  }
  return all(parts);
}

// An empty $or passes (and so an empty $nor fails), as in GrowthBook.
function any(conditions: Predicate[]): Predicate {
  if (conditions.length === 0) return EVERYONE;
  return (attributes, groups) => {
    for (const condition of conditions) if (condition(attributes, groups)) return true;
    return false;
  };
}

/** One part of a path: an object's own field; null when missing, or on no object or array. */
function readField(current: unknown, part: string): unknown {
  let value: unknown;
  if (isPlainObject(current)) {
    if (!Object.hasOwn(current, part)) return null;
    value = current[part];
  } else if (Array.isArray(current)) {
    // As in both GrowthBook SDKs, an array has its length and its canonical indexes in range.
    if (part === 'length') return current.length;
    if (!ARRAY_INDEX.test(part)) return null;
    const index = Number(part);
    if (index >= current.length) return null;
    value = current[index];
  } else {
    return null;
  }
  return value === undefined ? null : value;
}

// "0", "1", "12"; not "01", "-1", "+1", "1e2" or " 1".
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The value at a dot path, through JSON objects' own keys and arrays' indexes and length;
 * null when missing.
 */
function readPath(attributes: unknown, path: readonly string[]): unknown {
  let current = attributes;
  for (const part of path) {
    current = readField(current, part);
    if (current === null) return null;
  }
  return current;
}

/** A condition value: shorthand equality, or an operator object. */
function compileValue(expected: unknown, insensitive: boolean): ValueTest {
  switch (typeof expected) {
    case 'string': {
      if (!insensitive) return (value) => stringForm(value) === expected;
      const lower = expected.toLowerCase();
      return (value) => stringForm(value)?.toLowerCase() === lower;
    }
    case 'number':
      return (value) => numberForm(value) === expected;
    case 'boolean':
      return (value) => value !== null && value !== undefined && truthy(value) === expected;
  }
  if (isPlainObject(expected) && isOperatorObject(expected)) {
    return all(
      Object.entries(expected).map(([operator, operand]) =>
        compileOperator(operator as ValueOperator, operand),
      ),
    );
  }
  return (value) => sameValue(value, expected);
}

function compileOperator(operator: ValueOperator, operand: unknown): ValueTest {
  switch (operator) {
    case '$eq':
      return (value) => sameValue(value, operand);
    case '$ne':
      return (value) => !sameValue(value, operand);
    case '$lt':
      return (value) => compare(value, operand) < 0;
    case '$lte':
      return (value) => compare(value, operand) <= 0;
    case '$gt':
      return (value) => compare(value, operand) > 0;
    case '$gte':
      return (value) => compare(value, operand) >= 0;
    case '$veq':
    case '$vne':
    case '$vlt':
    case '$vlte':
    case '$vgt':
    case '$vgte':
      return compileVersion(operator, paddedVersionString(operand));
    case '$in': {
      const isIn = membership(operand as unknown[], false);
      return (value) => isIn(value);
    }
    case '$nin': {
      const isIn = membership(operand as unknown[], false);
      return (value) => !isIn(value);
    }
    case '$ini': {
      const isIn = membership(operand as unknown[], true);
      return (value) => isIn(value);
    }
    case '$nini': {
      const isIn = membership(operand as unknown[], true);
      return (value) => !isIn(value);
    }
    case '$inGroup':
      return (value, groups) => groupMembership(groups, operand as string)(value);
    case '$notInGroup':
      return (value, groups) => !groupMembership(groups, operand as string)(value);
    case '$all':
    case '$alli': {
      const wanted = (operand as unknown[]).map((item) => compileValue(item, operator === '$alli'));
      return (value, groups) =>
        Array.isArray(value) &&
        wanted.every((test) => value.some((element) => test(element, groups)));
    }
    case '$exists':
      return operand
        ? (value) => value !== null && value !== undefined
        : (value) => value === null || value === undefined;
    case '$type':
      return (value) => typeName(value) === operand;
    case '$size': {
      const test = compileValue(operand, false);
      return (value, groups) => Array.isArray(value) && test(value.length, groups);
    }
    case '$elemMatch': {
      const shape = operand as Record<string, unknown>;
      const test: ValueTest = isOperatorObject(shape)
        ? compileValue(shape, false)
        : compileCondition(shape);
      // Null elements are skipped, as both GrowthBook SDKs skip them.
      return (value, groups) =>
        Array.isArray(value) &&
        value.some((element) => element !== null && element !== undefined && test(element, groups));
    }
    case '$not': {
      const test = compileValue(operand, false);
      return (value, groups) => !test(value, groups);
    }
    case '$regex':
    case '$regexi': {
      // Readable conditions have valid patterns; null, arrays and objects have no text to search.
      const pattern = compilePattern(operand as string, operator === '$regexi');
      if (pattern === null) return () => false;
      return (value) => {
        const text = stringForm(value);
        return text !== undefined && pattern.test(text);
      };
    }
  }
}

function compileVersion(operator: ValueOperator, padded: string): ValueTest {
  switch (operator) {
    case '$veq':
      return (value) => paddedVersionString(value) === padded;
    case '$vne':
      return (value) => paddedVersionString(value) !== padded;
    case '$vlt':
      return (value) => paddedVersionString(value) < padded;
    case '$vlte':
      return (value) => paddedVersionString(value) <= padded;
    case '$vgt':
      return (value) => paddedVersionString(value) > padded;
    default:
      return (value) => paddedVersionString(value) >= padded;
  }
}

/**
 * Whether a value is in the list (by `sameValue`, strings lowercased when insensitive); an
 * array value is when any of its elements is. Strings, numbers and booleans are looked up in a
 * set, so a long list or saved group costs no more than a short one.
 */
function membership(list: readonly unknown[], insensitive: boolean): (value: unknown) => boolean {
  const scalars = new Set<unknown>();
  const others: unknown[] = [];
  for (const item of list) {
    if (typeof item === 'string') scalars.add(insensitive ? item.toLowerCase() : item);
    else if (typeof item === 'number' || typeof item === 'boolean') scalars.add(item);
    else others.push(item === undefined ? null : item);
  }
  const one = (value: unknown): boolean => {
    if (typeof value === 'string') return scalars.has(insensitive ? value.toLowerCase() : value);
    if (typeof value === 'number' || typeof value === 'boolean') return scalars.has(value);
    return others.some((item) => sameValue(value, item));
  };
  return (value) => (Array.isArray(value) ? value.some(one) : one(value));
}

// Saved groups arrive with the config and are evaluated again and again: each group's lookup
// set is built once per groups object.
const groupSets = new WeakMap<object, Map<string, (value: unknown) => boolean>>();
const EMPTY_GROUP = (): boolean => false;

function groupMembership(groups: SavedGroups, key: string): (value: unknown) => boolean {
  let byKey = groupSets.get(groups);
  if (byKey === undefined) {
    byKey = new Map();
    groupSets.set(groups, byKey);
  }
  let isIn = byKey.get(key);
  if (isIn === undefined) {
    // A missing group, or one that is not a list, is empty.
    const values = Object.hasOwn(groups, key) ? groups[key] : undefined;
    isIn = Array.isArray(values) ? membership(values, false) : EMPTY_GROUP;
    byKey.set(key, isIn);
  }
  return isIn;
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

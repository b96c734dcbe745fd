import { type FieldPath, readPath } from './field-path.ts';
import { compare, numberForm, sameValue, stringForm, truthy } from './json-values.ts';
import { groupMembership, type Membership, type SavedGroups } from './membership.ts';
import { searchable } from './regex-safety.ts';
import { paddedVersionString } from './version-string.ts';

/** A compiled condition: whether the attributes satisfy it, with the saved groups. */
export type Predicate = (attributes: unknown, groups: SavedGroups) => boolean;

// What a test does: `passAll` switches on it. Each case label is its number written out, so
// that V8 dispatches through a jump table rather than comparing with each kind in turn.
export const STRING_IS = 0;
export const STRING_IS_IGNORING_CASE = 1;
export const NUMBER_IS = 2;
export const TRUTHINESS_IS = 3;
export const EQUALS = 4;
export const NOT_EQUALS = 5;
export const LESS = 6;
export const LESS_OR_EQUAL = 7;
export const GREATER = 8;
export const GREATER_OR_EQUAL = 9;
export const VERSION_EQUALS = 10;
export const VERSION_NOT_EQUALS = 11;
export const VERSION_LESS = 12;
export const VERSION_LESS_OR_EQUAL = 13;
export const VERSION_GREATER = 14;
export const VERSION_GREATER_OR_EQUAL = 15;
export const IN = 16;
export const NOT_IN = 17;
export const IN_GROUP = 18;
export const NOT_IN_GROUP = 19;
export const ALL = 20;
export const EXISTS = 21;
export const MISSING = 22;
export const TYPE_IS = 23;
export const SIZE = 24;
export const ELEMENT_MATCHES = 25;
export const NOT = 26;
export const MATCHES_PATTERN = 27;
export const NEVER = 28;

export type Kind = number;

/** What a test holds besides its kind; each kind uses a few of these. */
export interface TestParts {
  /** Where the tested value is read from the attributes; none for a test of a given value. */
  path?: FieldPath | null;
  /** The operand as given: compared with `sameValue`, `compare`, or as a truthiness. */
  operand?: unknown;
  /** A string prepared from the operand: lowercased, a padded version, a type or group name. */
  text?: string;
  number?: number;
  members?: Membership | null;
  pattern?: RegExp | null;
  /** The tests of `$not`, `$size`, `$elemMatch` (one list) and `$all` (one per item). */
  inner?: readonly (readonly ValueTest[])[];
  /** `$elemMatch`'s condition on each element. */
  condition?: Predicate | null;
}

const NO_TESTS: readonly (readonly ValueTest[])[] = [];

/**
 * One operator of one field, with its operand prepared when the condition is compiled. Every
 * test is of this one class with its fields set in one order, so that `passAll` reads them
 * through one hidden class and V8 can inline the operators into its single switch: a closure
 * per operator made every call megamorphic and cost about twice as much (see
 * bench/typescript-client/RESULTS.md).
 */
export class ValueTest {
  readonly path: FieldPath | null;
  readonly operand: unknown;
  readonly text: string;
  readonly number: number;
  readonly members: Membership | null;
  readonly pattern: RegExp | null;
  readonly inner: readonly (readonly ValueTest[])[];
  readonly condition: Predicate | null;

  constructor(
    readonly kind: Kind,
    parts: TestParts = {},
  ) {
    this.path = parts.path ?? null;
    this.operand = parts.operand ?? null;
    this.text = parts.text ?? '';
    this.number = parts.number ?? 0;
    this.members = parts.members ?? null;
    this.pattern = parts.pattern ?? null;
    this.inner = parts.inner ?? NO_TESTS;
    this.condition = parts.condition ?? null;
  }
}

/**
 * Whether every test passes: a test with a path tests the field it reads from `input` (the
 * attributes), one without tests `input` itself.
 */
export function passAll(tests: readonly ValueTest[], input: unknown, groups: SavedGroups): boolean {
  for (let i = 0; i < tests.length; i++) {
    const test = tests[i] as ValueTest;
    const value = test.path === null ? input : readPath(input, test.path);
    if (
      !(test.kind <= VERSION_GREATER_OR_EQUAL
        ? comparesTo(test, value)
        : holds(test, value, groups))
    )
      return false;
  }
  return true;
}

/** The tests of a value against the operand: equalities and orderings, versions included. */
function comparesTo(test: ValueTest, value: unknown): boolean {
  switch (test.kind) {
    case 0: // STRING_IS
      return stringForm(value) === test.text;
    case 1: // STRING_IS_IGNORING_CASE
      return stringForm(value)?.toLowerCase() === test.text;
    case 2: // NUMBER_IS
      return numberForm(value) === test.number;
    case 3: // TRUTHINESS_IS
      return value !== null && value !== undefined && truthy(value) === test.operand;
    case 4: // EQUALS
      return sameValue(value, test.operand);
    case 5: // NOT_EQUALS
      return !sameValue(value, test.operand);
    case 6: // LESS
      return compare(value, test.operand) < 0;
    case 7: // LESS_OR_EQUAL
      return compare(value, test.operand) <= 0;
    case 8: // GREATER
      return compare(value, test.operand) > 0;
    case 9: // GREATER_OR_EQUAL
      return compare(value, test.operand) >= 0;
    case 10: // VERSION_EQUALS
      return paddedVersionString(value) === test.text;
    case 11: // VERSION_NOT_EQUALS
      return paddedVersionString(value) !== test.text;
    case 12: // VERSION_LESS
      return paddedVersionString(value) < test.text;
    case 13: // VERSION_LESS_OR_EQUAL
      return paddedVersionString(value) <= test.text;
    case 14: // VERSION_GREATER
      return paddedVersionString(value) > test.text;
    default: // VERSION_GREATER_OR_EQUAL
      return paddedVersionString(value) >= test.text;
  }
}

/** The other tests: membership, presence and type, the nested tests, and patterns. */
function holds(test: ValueTest, value: unknown, groups: SavedGroups): boolean {
  switch (test.kind) {
    case 16: // IN
      return (test.members as Membership).has(value);
    case 17: // NOT_IN
      return !(test.members as Membership).has(value);
    case 18: // IN_GROUP
      return groupMembership(groups, test.text).has(value);
    case 19: // NOT_IN_GROUP
      return !groupMembership(groups, test.text).has(value);
    case 20: // ALL
      return Array.isArray(value) && allFound(test.inner, value, groups);
    case 21: // EXISTS
      return value !== null && value !== undefined;
    case 22: // MISSING
      return value === null || value === undefined;
    case 23: // TYPE_IS
      return typeName(value) === test.text;
    case 24: // SIZE
      return Array.isArray(value) && passAll(test.inner[0] as ValueTest[], value.length, groups);
    case 25: // ELEMENT_MATCHES
      return Array.isArray(value) && someElementMatches(test, value, groups);
    case 26: // NOT
      return !passAll(test.inner[0] as ValueTest[], value, groups);
    case 27: {
      // MATCHES_PATTERN
      const text = stringForm(value);
      return text !== undefined && searchable(text) && (test.pattern as RegExp).test(text);
    }
    default: // NEVER
      return false;
  }
}

/** `$all`: each item's tests pass on some element. */
function allFound(
  items: readonly (readonly ValueTest[])[],
  elements: readonly unknown[],
  groups: SavedGroups,
): boolean {
  return items.every((tests) => elements.some((element) => passAll(tests, element, groups)));
}

/** `$elemMatch`: null elements are skipped, as both GrowthBook SDKs skip them. */
function someElementMatches(
  test: ValueTest,
  elements: readonly unknown[],
  groups: SavedGroups,
): boolean {
  const { condition } = test;
  const tests = test.inner[0] as ValueTest[];
  return elements.some(
    (element) =>
      element !== null &&
      element !== undefined &&
      (condition === null ? passAll(tests, element, groups) : condition(element, groups)),
  );
}

/** `$type`'s name of a value (missing reads as null). */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

// How the condition language reads attribute values: the string and number forms of a value,
// truthiness, and equality. GrowthBook's JavaScript evaluator gets these from JavaScript's own
// coercions; here they are written out, restricted to what every client language can reproduce
// (docs/wire-format.md#the-condition-language-targeting).

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The string a value reads as where a string is expected (string shorthand, `$regex`, the
 * case-insensitive operators): a string itself, a number as JavaScript prints it, `true` or
 * `false`; null, arrays and objects have none.
 */
export function stringForm(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return undefined;
  }
}

// A plain decimal number, in full: no whitespace, no hex, no `Infinity`, not empty.
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;

/**
 * The number a value reads as where a number is expected (number shorthand, ordering against a
 * number): null or missing is 0, booleans are 1 and 0, a string only if it is a plain decimal;
 * anything else is NaN, which no comparison accepts.
 */
export function numberForm(value: unknown): number {
  if (value === null || value === undefined) return 0;
  switch (typeof value) {
    case 'number':
      return value;
    case 'boolean':
      return value ? 1 : 0;
    case 'string':
      return DECIMAL.test(value) ? Number(value) : Number.NaN;
    default:
      return Number.NaN;
  }
}

/** JavaScript truthiness over JSON values: "", 0, false and null are false; arrays and objects true. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  switch (typeof value) {
    case 'string':
      return value.length > 0;
    case 'number':
      return value !== 0 && !Number.isNaN(value);
    case 'boolean':
      return value;
    default:
      return true;
  }
}

/**
 * Equality of two JSON values: same type and value; numbers by value (1 equals 1.0, 0 equals -0);
 * arrays element by element in order; objects by their keys in any order. Missing equals null.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return b === null || b === undefined;
  if (b === null || b === undefined) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!sameValue(a[i], b[i])) return false;
    }
    return true;
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(b, key) || !sameValue(a[key], b[key])) return false;
    }
    return true;
  }
  return a === b;
}

/**
 * The ordering operators: two strings compare by UTF-16 code units; otherwise both sides read
 * as numbers (`numberForm`), and an array or object on either side never compares.
 */
export function compare(actual: unknown, expected: unknown): number {
  if (typeof actual === 'string' && typeof expected === 'string') {
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  }
  if (typeof actual === 'object' && actual !== null) return Number.NaN;
  if (typeof expected === 'object' && expected !== null) return Number.NaN;
  const a = numberForm(actual);
  const b = numberForm(expected);
  return a < b ? -1 : a > b ? 1 : a === b ? 0 : Number.NaN;
}

/** The logical operators, which take conditions; they are keys of a condition. */
export const LOGICAL_OPERATORS = ['$and', '$or', '$nor', '$not'] as const;

/** The operators of an operator object: `{ "age": { "$gte": 18 } }`. */
export const VALUE_OPERATORS = [
  '$eq',
  '$ne',
  '$lt',
  '$lte',
  '$gt',
  '$gte',
  '$in',
  '$nin',
  '$ini',
  '$nini',
  '$all',
  '$alli',
  '$exists',
  '$type',
  '$size',
  '$elemMatch',
  '$not',
  '$regex',
  '$regexi',
  '$veq',
  '$vne',
  '$vgt',
  '$vgte',
  '$vlt',
  '$vlte',
  '$inGroup',
  '$notInGroup',
] as const;

export type ValueOperator = (typeof VALUE_OPERATORS)[number];

/** The names `$type` accepts. */
export const TYPE_NAMES = ['string', 'number', 'boolean', 'null', 'object', 'array'] as const;

/**
 * An operator object: a JSON object whose keys all start with `$` (at least one). An object with
 * no such key is a plain value compared by equality; one that mixes both is unreadable.
 */
export function isOperatorObject(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}

/** Whether some key of the object starts with `$` (with `isOperatorObject`: whether it mixes). */
export function hasOperatorKey(value: Record<string, unknown>): boolean {
  return Object.keys(value).some((key) => key.startsWith('$'));
}

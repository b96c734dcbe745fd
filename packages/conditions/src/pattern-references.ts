import { isPlainObject } from './json-values.ts';

/** A `$regex`/`$regexi` operand of a condition, and where: a JSON Pointer into the condition. */
export interface PatternReference {
  pointer: string;
  pattern: string;
  insensitive: boolean;
}

const pointerPart = (key: string | number) =>
  String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Every string `$regex`/`$regexi` operand of a condition, wherever it sits (under `$and`, `$or`,
 * `$nor`, `$not`, `$elemMatch`, `$all`, `$size`), so that the server can analyse the patterns a
 * save brings or a stored condition holds. Operands of data operators (`$in`, `$eq`, …) are
 * values, not patterns, and are not searched.
 */
export function patternReferences(condition: unknown, pointer = ''): PatternReference[] {
  const out: PatternReference[] = [];
  if (Array.isArray(condition)) {
    condition.forEach((item, i) => {
      out.push(...patternReferences(item, `${pointer}/${i}`));
    });
  } else if (isPlainObject(condition)) {
    for (const [key, value] of Object.entries(condition)) {
      const at = `${pointer}/${pointerPart(key)}`;
      if (key === '$regex' || key === '$regexi') {
        if (typeof value === 'string')
          out.push({ pointer: at, pattern: value, insensitive: key === '$regexi' });
      } else if (!DATA_OPERATORS.has(key)) out.push(...patternReferences(value, at));
    }
  }
  return out;
}

// Operators whose operand is plain data: nothing under them is a pattern.
const DATA_OPERATORS: ReadonlySet<string> = new Set([
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
  '$veq',
  '$vne',
  '$vgt',
  '$vgte',
  '$vlt',
  '$vlte',
  '$exists',
  '$type',
  '$inGroup',
  '$notInGroup',
]);

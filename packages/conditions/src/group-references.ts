import { isPlainObject } from './json-values.ts';

/** Where a readable condition names a saved group, and which: a JSON Pointer into the condition. */
export interface GroupReference {
  pointer: string;
  key: string;
}

// Operators whose operand is plain data, never a condition: nothing under them names a group.
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
  '$regex',
  '$regexi',
  '$exists',
  '$type',
]);

const pointerPart = (key: string | number) =>
  String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Every `$inGroup`/`$notInGroup` operand of a condition, wherever it sits (under `$and`, `$or`,
 * `$nor`, `$not`, `$elemMatch`, or an operator object's `$not`), so that a save can refuse a
 * group that does not exist. Meant for conditions `checkCondition` accepts.
 */
export function groupReferences(condition: unknown, pointer = ''): GroupReference[] {
  const out: GroupReference[] = [];
  if (Array.isArray(condition)) {
    condition.forEach((item, i) => {
      out.push(...groupReferences(item, `${pointer}/${i}`));
    });
  } else if (isPlainObject(condition)) {
    for (const [key, value] of Object.entries(condition)) {
      const at = `${pointer}/${pointerPart(key)}`;
      if ((key === '$inGroup' || key === '$notInGroup') && typeof value === 'string')
        out.push({ pointer: at, key: value });
      else if (!DATA_OPERATORS.has(key)) out.push(...groupReferences(value, at));
    }
  }
  return out;
}

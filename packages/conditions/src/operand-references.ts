import { isPlainObject } from './json-values.ts';
import { VALUE_OPERATORS } from './operators.ts';

// The value operators whose operand holds conditions or values to search on; every other value
// operator's operand is plain data, so nothing under it names a group or holds a pattern.
const SEARCHED_OPERATORS: ReadonlySet<string> = new Set([
  '$all',
  '$alli',
  '$size',
  '$elemMatch',
  '$not',
]);

const DATA_OPERATORS: ReadonlySet<string> = new Set(
  VALUE_OPERATORS.filter((operator) => !SEARCHED_OPERATORS.has(operator)),
);

const pointerPart = (key: string | number) =>
  String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Reads an operand as a reference: what the operator at `pointer` names, or undefined when the
 * operand is not one (a key that is not a data operator is then searched below).
 */
export type ReadOperand<T> = (key: string, value: unknown, pointer: string) => T | undefined;

/**
 * Every reference `read` finds in a condition, wherever it sits (under `$and`, `$or`, `$nor`,
 * `$not`, `$elemMatch`, `$all`, `$size`, or an operator object's `$not`), each with its JSON
 * Pointer into the condition. Operands of data operators (`$in`, `$eq`, …) are values: they are
 * read, never searched.
 */
export function operandReferences<T>(condition: unknown, read: ReadOperand<T>, pointer = ''): T[] {
  const out: T[] = [];
  if (Array.isArray(condition)) {
    condition.forEach((item, i) => {
      out.push(...operandReferences(item, read, `${pointer}/${i}`));
    });
  } else if (isPlainObject(condition)) {
    for (const [key, value] of Object.entries(condition)) {
      const at = `${pointer}/${pointerPart(key)}`;
      const found = read(key, value, at);
      if (found !== undefined) out.push(found);
      else if (!DATA_OPERATORS.has(key)) out.push(...operandReferences(value, read, at));
    }
  }
  return out;
}

import { operandReferences } from './operand-references.ts';

/** Where a readable condition names a saved group, and which: a JSON Pointer into the condition. */
export interface GroupReference {
  pointer: string;
  key: string;
}

/**
 * Every `$inGroup`/`$notInGroup` operand of a condition, wherever it sits, so that a save can
 * refuse a group that does not exist. Meant for conditions `checkCondition` accepts.
 */
export function groupReferences(condition: unknown): GroupReference[] {
  return operandReferences(condition, (key, value, pointer) =>
    (key === '$inGroup' || key === '$notInGroup') && typeof value === 'string'
      ? { pointer, key: value }
      : undefined,
  );
}

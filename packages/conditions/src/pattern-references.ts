import { operandReferences } from './operand-references.ts';

/** A `$regex`/`$regexi` operand of a condition, and where: a JSON Pointer into the condition. */
export interface PatternReference {
  pointer: string;
  pattern: string;
  insensitive: boolean;
}

/**
 * Every string `$regex`/`$regexi` operand of a condition, wherever it sits, so that the server can
 * analyse the patterns a save brings or a stored condition holds.
 */
export function patternReferences(condition: unknown): PatternReference[] {
  return operandReferences(condition, (key, value, pointer) =>
    (key === '$regex' || key === '$regexi') && typeof value === 'string'
      ? { pointer, pattern: value, insensitive: key === '$regexi' }
      : undefined,
  );
}

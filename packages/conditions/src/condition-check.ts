import { isPlainObject } from './json-values.ts';
import {
  hasOperatorKey,
  isOperatorObject,
  TYPE_NAMES,
  VALUE_OPERATORS,
  type ValueOperator,
} from './operators.ts';
import { compilePattern } from './regex-cache.ts';
import { nonPortableConstruct } from './regex-portability.ts';
import { unsafePattern } from './regex-safety.ts';

/** Why a condition cannot be read, and where: a JSON Pointer into the condition. */
export interface ConditionProblem {
  pointer: string;
  message: string;
}

const VALUE_OPERATOR_SET: ReadonlySet<string> = new Set(VALUE_OPERATORS);
const TYPE_NAME_SET: ReadonlySet<string> = new Set(TYPE_NAMES);

interface Check {
  problems: ConditionProblem[];
}

/**
 * Every problem that makes a condition unreadable; none when the evaluator can read it. An
 * unreadable condition matches no one at run time, so a save refuses it with these pointers
 * (relative to the condition: "" is the condition itself, "/$and/0/age/$gt" an operand).
 */
export function checkCondition(condition: unknown): ConditionProblem[] {
  const problems: ConditionProblem[] = [];
  try {
    checkConditionAt(condition, '', { problems });
  } catch {
    // Only a condition nested deeper than the stack gets here.
    problems.push({ pointer: '', message: 'the condition is nested too deeply to read' });
  }
  return problems;
}

function child(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function checkConditionAt(condition: unknown, pointer: string, check: Check): void {
  const { problems } = check;
  if (!isPlainObject(condition)) {
    problems.push({
      pointer,
      message: `a condition must be an object, not ${describe(condition)}`,
    });
    return;
  }
  for (const [key, value] of Object.entries(condition)) {
    const at = child(pointer, key);
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (!Array.isArray(value)) {
        problems.push({ pointer: at, message: `${key} takes a list of conditions` });
        continue;
      }
      for (const [i, item] of value.entries()) checkConditionAt(item, child(at, i), check);
    } else if (key === '$not') {
      checkConditionAt(value, at, check);
    } else {
      // Any other key, even one starting with `$`, is a field path.
      checkValueAt(value, at, check);
    }
  }
}

/** A condition value: a plain value compared by equality, or an operator object. */
function checkValueAt(value: unknown, pointer: string, check: Check): void {
  const { problems } = check;
  if (!isPlainObject(value) || !hasOperatorKey(value)) return;
  if (!isOperatorObject(value)) {
    problems.push({
      pointer,
      message: 'an object mixes operators ($…) with field names; write the fields as paths',
    });
    return;
  }
  for (const [operator, operand] of Object.entries(value)) {
    const at = child(pointer, operator);
    if (!VALUE_OPERATOR_SET.has(operator)) {
      problems.push({ pointer: at, message: `unknown operator ${operator}` });
      continue;
    }
    checkOperand(operator as ValueOperator, operand, at, check);
  }
}

function wrongOperand(
  check: Check,
  pointer: string,
  operator: ValueOperator,
  operand: unknown,
  expected: string,
): void {
  check.problems.push({
    pointer,
    message: `${operator} takes ${expected}, not ${describe(operand)}`,
  });
}

function checkOperand(
  operator: ValueOperator,
  operand: unknown,
  pointer: string,
  check: Check,
): void {
  const wrong = (expected: string) => wrongOperand(check, pointer, operator, operand, expected);
  switch (operator) {
    case '$eq':
    case '$ne':
      return;
    case '$lt':
    case '$lte':
    case '$gt':
    case '$gte':
    case '$veq':
    case '$vne':
    case '$vgt':
    case '$vgte':
    case '$vlt':
    case '$vlte':
      if (typeof operand !== 'string' && typeof operand !== 'number') wrong('a string or a number');
      return;
    case '$in':
    case '$nin':
    case '$ini':
    case '$nini':
      if (!Array.isArray(operand)) wrong('a list');
      return;
    default:
      checkNestingOperand(operator, operand, pointer, check, wrong);
  }
}

/** The operands that hold values, conditions, names or patterns to check in turn. */
function checkNestingOperand(
  operator: ValueOperator,
  operand: unknown,
  pointer: string,
  check: Check,
  wrong: (expected: string) => void,
): void {
  switch (operator) {
    case '$all':
    case '$alli':
      if (!Array.isArray(operand)) {
        wrong('a list');
        return;
      }
      for (const [i, item] of operand.entries()) checkValueAt(item, child(pointer, i), check);
      return;
    case '$exists':
      if (typeof operand !== 'boolean') wrong('true or false');
      return;
    case '$type':
      if (typeof operand !== 'string' || !TYPE_NAME_SET.has(operand)) {
        check.problems.push({
          pointer,
          message: `$type takes one of ${TYPE_NAMES.join(', ')}, not ${JSON.stringify(operand)}`,
        });
      }
      return;
    case '$inGroup':
    case '$notInGroup':
      if (typeof operand !== 'string') wrong("a saved group's key (a string)");
      return;
    case '$regex':
    case '$regexi':
      if (typeof operand !== 'string') {
        wrong('a pattern (a string)');
        return;
      }
      checkPattern(operator, operand, pointer, check);
      return;
    case '$not':
    case '$size':
      checkValueAt(operand, pointer, check);
      return;
    case '$elemMatch':
      if (!isPlainObject(operand)) {
        wrong('an object (a condition or operators)');
        return;
      }
      if (isOperatorObject(operand)) checkValueAt(operand, pointer, check);
      else checkConditionAt(operand, pointer, check);
      return;
  }
}

/**
 * A pattern that could backtrack for ever is unreadable before it is compiled, so no evaluator
 * ever runs it; then an invalid one; then one the clients would read differently, which no
 * evaluator runs either (regex-cache.ts).
 */
function checkPattern(operator: string, pattern: string, pointer: string, check: Check): void {
  const { problems } = check;
  const unsafe = unsafePattern(pattern);
  if (unsafe !== undefined) {
    problems.push({
      pointer,
      message: `${operator} could take exponential time to search (ReDoS): ${unsafe}`,
    });
    return;
  }
  if (compilePattern(pattern, operator === '$regexi') !== null) return;
  const construct = nonPortableConstruct(pattern);
  problems.push({
    pointer,
    message:
      construct !== undefined && validInJavaScript(pattern)
        ? `${operator} would not mean the same in every client: ${construct}`
        : `${operator} is not a valid regular expression`,
  });
}

function validInJavaScript(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

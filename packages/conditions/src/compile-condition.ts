// The interpreter: a condition compiled into lists of `ValueTest`s (value-tests.ts) run by one
// loop. The operands' work (version padding, pattern compilation, lookup sets) is done here,
// once, not per user. fast/generated-matcher.ts builds a faster function from the same tests and
// falls back to these wherever it cannot.
import { type FieldPath, fieldPath } from './field-path.ts';
import { isPlainObject } from './json-values.ts';
import { Membership } from './membership.ts';
import { isOperatorObject, type ValueOperator } from './operators.ts';
import { compilePattern } from './regex-cache.ts';
import {
  ALL,
  ELEMENT_MATCHES,
  EQUALS,
  EXISTS,
  GREATER,
  GREATER_OR_EQUAL,
  IN,
  IN_GROUP,
  type Kind,
  LESS,
  LESS_OR_EQUAL,
  MATCHES_PATTERN,
  MISSING,
  NEVER,
  NOT,
  NOT_EQUALS,
  NOT_IN,
  NOT_IN_GROUP,
  NUMBER_IS,
  type Predicate,
  passAll,
  SIZE,
  STRING_IS,
  STRING_IS_IGNORING_CASE,
  TRUTHINESS_IS,
  TYPE_IS,
  ValueTest,
  VERSION_EQUALS,
  VERSION_GREATER,
  VERSION_GREATER_OR_EQUAL,
  VERSION_LESS,
  VERSION_LESS_OR_EQUAL,
  VERSION_NOT_EQUALS,
} from './value-tests.ts';
import { paddedVersionString } from './version-string.ts';

const EVERYONE: Predicate = () => true;

function all(predicates: Predicate[]): Predicate {
  if (predicates.length === 0) return EVERYONE;
  if (predicates.length === 1) return predicates[0] as Predicate;
  return (attributes, groups) => {
    for (const predicate of predicates) if (!predicate(attributes, groups)) return false;
    return true;
  };
}

// An empty $or passes (and so an empty $nor fails), as in GrowthBook.
function any(predicates: Predicate[]): Predicate {
  if (predicates.length === 0) return EVERYONE;
  return (attributes, groups) => {
    for (const predicate of predicates) if (predicate(attributes, groups)) return true;
    return false;
  };
}

export function compileCondition(condition: Record<string, unknown>): Predicate {
  const fieldTests: ValueTest[] = [];
  const logical: Predicate[] = [];
  for (const [key, value] of Object.entries(condition)) {
    switch (key) {
      case '$and':
        logical.push(all((value as Record<string, unknown>[]).map(compileCondition)));
        break;
      case '$or':
        logical.push(any((value as Record<string, unknown>[]).map(compileCondition)));
        break;
      case '$nor': {
        const either = any((value as Record<string, unknown>[]).map(compileCondition));
        logical.push((attributes, groups) => !either(attributes, groups));
        break;
      }
      case '$not': {
        const inner = compileCondition(value as Record<string, unknown>);
        logical.push((attributes, groups) => !inner(attributes, groups));
        break;
      }
      default:
        fieldTests.push(...compileValue(value, false, fieldPath(key)));
    }
  }
  // All keys must hold, so their order does not matter: the field tests run first, in one loop.
  if (fieldTests.length > 0) {
    logical.unshift((attributes, groups) => passAll(fieldTests, attributes, groups));
  }
  return all(logical);
}

/**
 * A condition value, as tests of the field at `path` (or, without one, of a value given):
 * shorthand equality, or an operator object, one test per operator.
 */
export function compileValue(
  expected: unknown,
  insensitive: boolean,
  path: FieldPath | null = null,
): ValueTest[] {
  switch (typeof expected) {
    case 'string':
      return insensitive
        ? [new ValueTest(STRING_IS_IGNORING_CASE, { path, text: expected.toLowerCase() })]
        : [new ValueTest(STRING_IS, { path, text: expected })];
    case 'number':
      return [new ValueTest(NUMBER_IS, { path, number: expected })];
    case 'boolean':
      return [new ValueTest(TRUTHINESS_IS, { path, operand: expected })];
  }
  if (isPlainObject(expected) && isOperatorObject(expected)) {
    return Object.entries(expected).map(([operator, operand]) =>
      compileOperator(operator as ValueOperator, operand, path),
    );
  }
  return [new ValueTest(EQUALS, { path, operand: expected })];
}

const ORDERINGS: Record<string, Kind> = {
  $lt: LESS,
  $lte: LESS_OR_EQUAL,
  $gt: GREATER,
  $gte: GREATER_OR_EQUAL,
};
const VERSION_ORDERINGS: Record<string, Kind> = {
  $veq: VERSION_EQUALS,
  $vne: VERSION_NOT_EQUALS,
  $vlt: VERSION_LESS,
  $vlte: VERSION_LESS_OR_EQUAL,
  $vgt: VERSION_GREATER,
  $vgte: VERSION_GREATER_OR_EQUAL,
};

/** The operators that compare the field with their operand, or look it up in a list. */
type ComparingOperator =
  | '$eq'
  | '$ne'
  | '$lt'
  | '$lte'
  | '$gt'
  | '$gte'
  | '$veq'
  | '$vne'
  | '$vlt'
  | '$vlte'
  | '$vgt'
  | '$vgte'
  | '$in'
  | '$ini'
  | '$nin'
  | '$nini';

export function compileOperator(
  operator: ValueOperator,
  operand: unknown,
  path: FieldPath | null,
): ValueTest {
  switch (operator) {
    case '$eq':
      return new ValueTest(EQUALS, { path, operand });
    case '$ne':
      return new ValueTest(NOT_EQUALS, { path, operand });
    case '$lt':
    case '$lte':
    case '$gt':
    case '$gte':
      return new ValueTest(ORDERINGS[operator] as Kind, { path, operand });
    case '$veq':
    case '$vne':
    case '$vlt':
    case '$vlte':
    case '$vgt':
    case '$vgte':
      return new ValueTest(VERSION_ORDERINGS[operator] as Kind, {
        path,
        text: paddedVersionString(operand),
      });
    case '$in':
    case '$ini':
      return new ValueTest(IN, {
        path,
        members: new Membership(operand as unknown[], operator === '$ini'),
      });
    case '$nin':
    case '$nini':
      return new ValueTest(NOT_IN, {
        path,
        members: new Membership(operand as unknown[], operator === '$nini'),
      });
    default:
      return compileTestOperator(operator, operand, path);
  }
}

/** The operators that test a field's presence, type, group, elements or text. */
function compileTestOperator(
  operator: Exclude<ValueOperator, ComparingOperator>,
  operand: unknown,
  path: FieldPath | null,
): ValueTest {
  switch (operator) {
    case '$inGroup':
      return new ValueTest(IN_GROUP, { path, text: operand as string });
    case '$notInGroup':
      return new ValueTest(NOT_IN_GROUP, { path, text: operand as string });
    case '$all':
    case '$alli': {
      const inner = (operand as unknown[]).map((item) => compileValue(item, operator === '$alli'));
      return new ValueTest(ALL, { path, inner });
    }
    case '$exists':
      return new ValueTest(operand ? EXISTS : MISSING, { path });
    case '$type':
      return new ValueTest(TYPE_IS, { path, text: operand as string });
    case '$size':
      return new ValueTest(SIZE, { path, inner: [compileValue(operand, false)] });
    case '$elemMatch': {
      const shape = operand as Record<string, unknown>;
      return isOperatorObject(shape)
        ? new ValueTest(ELEMENT_MATCHES, { path, inner: [compileValue(shape, false)] })
        : new ValueTest(ELEMENT_MATCHES, { path, condition: compileCondition(shape) });
    }
    case '$not':
      return new ValueTest(NOT, { path, inner: [compileValue(operand, false)] });
    case '$regex':
    case '$regexi': {
      // Readable conditions have valid patterns; null, arrays and objects have no text to search.
      const pattern = compilePattern(operand as string, operator === '$regexi');
      return pattern === null
        ? new ValueTest(NEVER, { path })
        : new ValueTest(MATCHES_PATTERN, { path, pattern });
    }
  }
}

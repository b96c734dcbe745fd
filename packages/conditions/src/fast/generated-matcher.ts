// A condition as one generated JavaScript function (`new Function`), for speed: the interpreter
// (compile-condition.ts) reads every field at one property-read site and dispatches every test
// through one switch, so V8 sees every name and operator there and cannot specialise; here each
// field has a read site of its own and each operator is written out where it is used, which
// takes a five-clause condition from ~140 ns to ~45 ns
// (bench/typescript-client/RESULTS.md).
//
// The safety rule: the generated source is made only of this file's fixed text and counters.
// Field names, operands, patterns and group keys reach the function as values, in the `values`
// array it is called with, never as source text; so no condition can change what the function
// does, only what it compares with (docs/decisions/targeting.md#targeting-conditions).
import { compileValue } from '../compile-condition.ts';
import { type FieldPath, fieldPath, readField } from '../field-path.ts';
import type { FieldTable } from '../field-table.ts';
import { compare, numberForm, sameValue, stringForm, truthy } from '../json-values.ts';
import { groupMembership, type Membership } from '../membership.ts';
import { searchable } from '../regex-safety.ts';
import {
  EQUALS,
  EXISTS,
  GREATER,
  GREATER_OR_EQUAL,
  IN,
  IN_GROUP,
  LESS,
  LESS_OR_EQUAL,
  MATCHES_PATTERN,
  MISSING,
  NEVER,
  NOT_EQUALS,
  NOT_IN,
  NOT_IN_GROUP,
  NUMBER_IS,
  type Predicate,
  passAll,
  STRING_IS,
  TRUTHINESS_IS,
  TYPE_IS,
  typeName,
  ValueTest,
  VERSION_EQUALS,
  VERSION_GREATER,
  VERSION_GREATER_OR_EQUAL,
  VERSION_LESS,
  VERSION_LESS_OR_EQUAL,
  VERSION_NOT_EQUALS,
} from '../value-tests.ts';
import { paddedVersionString } from '../version-string.ts';

/** `$regex`/`$regexi`: the value's string form, if it has one and it is short enough, searched. */
function matchesPattern(pattern: RegExp, value: unknown): boolean {
  const text = stringForm(value);
  return text !== undefined && searchable(text) && pattern.test(text);
}

// What the generated code calls, under these names (the destructuring in `factorySource`).
const HELPERS = {
  compare,
  groupMembership,
  hasOwn: Object.hasOwn,
  isArray: Array.isArray,
  matchesPattern,
  numberForm,
  paddedVersionString,
  passAll,
  readField,
  sameValue,
  stringForm,
  truthy,
  typeName,
};

const ORDER: Record<number, string> = {
  [LESS]: '<',
  [LESS_OR_EQUAL]: '<=',
  [GREATER]: '>',
  [GREATER_OR_EQUAL]: '>=',
  [VERSION_EQUALS]: '===',
  [VERSION_NOT_EQUALS]: '!==',
  [VERSION_LESS]: '<',
  [VERSION_LESS_OR_EQUAL]: '<=',
  [VERSION_GREATER]: '>',
  [VERSION_GREATER_OR_EQUAL]: '>=',
};

/** A matcher's source and the values it is given: what `generateMatcher` compiles. */
export interface MatcherSource {
  /** The body of `new Function('helpers', 'values', body)`: fixed text and counters only. */
  readonly body: string;
  readonly values: readonly unknown[];
}

// Each matcher's source is made distinct by its number: V8 caches the script of a `new
// Function` by its text, with its feedback, so two conditions of one shape would otherwise share
// read sites and each see both conditions' names.
let generated = 0;

/**
 * The source of a matcher for a condition `checkCondition` accepts. With a `table`, the matcher
 * takes the fields' values by the table's indexes (`FieldTable.resolve`) instead of the
 * attributes, and numbers the fields it reads in the table.
 */
export function matcherSource(
  condition: Record<string, unknown>,
  table: FieldTable | null = null,
): MatcherSource {
  const builder = new SourceBuilder(table);
  builder.condition(condition);
  const constants = builder.values.map((_, i) => `v${i} = values[${i}]`);
  const body = [
    `"use strict"; // condition matcher ${++generated}`,
    `const { ${Object.keys(HELPERS).join(', ')} } = helpers;`,
    ...(constants.length > 0 ? [`const ${constants.join(', ')};`] : []),
    ...builder.functions,
    'return c0;',
  ].join('\n');
  return { body, values: builder.values };
}

// Whether this realm has refused `new Function`: a Content-Security-Policy without
// 'unsafe-eval' (or node --disallow-code-generation-from-strings) throws EvalError. After the
// first refusal no more is attempted, so a page reports one CSP violation, not one a condition.
let refused = false;

/** Whether `new Function` was refused here, so that every condition runs in the interpreter. */
export function codeGenerationRefused(): boolean {
  return refused;
}

/**
 * The condition (one `checkCondition` accepts) as a generated function, or null where code
 * cannot be generated: the caller then uses the interpreter.
 */
export function generateMatcher(
  condition: Record<string, unknown>,
  table: FieldTable | null = null,
): Predicate | null {
  if (refused) return null;
  let source: MatcherSource;
  try {
    source = matcherSource(condition, table);
  } catch {
    return null; // a condition nested deeper than the stack
  }
  try {
    const factory = new Function('helpers', 'values', source.body) as (
      helpers: typeof HELPERS,
      values: readonly unknown[],
    ) => Predicate;
    return factory(HELPERS, source.values);
  } catch (error) {
    // Any other error is this condition's alone (none is known): it is interpreted.
    if (error instanceof EvalError) refused = true;
    return null;
  }
}

/** Builds the matcher's functions: `c0` for the condition, one more per nested condition. */
class SourceBuilder {
  readonly values: unknown[] = [];
  readonly functions: string[] = [];
  private fields = 0;

  /** With a table, `a` is the array of the table's values, not the attributes. */
  constructor(private readonly table: FieldTable | null) {}

  /** A name in the source for a value, which the function receives in `values`. */
  private value(value: unknown): string {
    return `v${this.values.push(value) - 1}`;
  }

  /** A function for the condition; returns its name. */
  condition(condition: Record<string, unknown>): string {
    const at = this.functions.push('') - 1;
    const name = `c${at}`;
    const lines: string[] = [];
    const logical: string[] = [];
    for (const [key, value] of Object.entries(condition)) {
      switch (key) {
        case '$and':
          logical.push(this.calls(value, ' && ', 'true'));
          break;
        case '$or':
          logical.push(this.calls(value, ' || ', 'true'));
          break;
        case '$nor':
          logical.push(`!(${this.calls(value, ' || ', 'true')})`);
          break;
        case '$not':
          logical.push(`!${this.condition(value as Record<string, unknown>)}(a, g)`);
          break;
        default:
          lines.push(...this.field(compileValue(value, false, fieldPath(key))));
      }
    }
    // As in the interpreter, every field test runs before the logical operators.
    for (const test of logical) lines.push(`if (!(${test})) return false;`);
    this.functions[at] = `function ${name}(a, g) {\n${lines.join('\n')}\nreturn true;\n}`;
    return name;
  }

  /** The conditions of `$and`/`$or`/`$nor` joined by an operator; `empty` for none. */
  private calls(conditions: unknown, operator: string, empty: string): string {
    const names = (conditions as Record<string, unknown>[]).map((c) => this.condition(c));
    return names.length === 0 ? empty : names.map((n) => `${n}(a, g)`).join(operator);
  }

  /** One field's tests (they share its path): the field is read once, then tested. */
  private field(tests: ValueTest[]): string[] {
    const x = `x${this.fields++}`;
    const path = (tests[0] as ValueTest).path as FieldPath;
    const lines: string[] = [];
    if (this.table !== null) {
      // Resolved already, as readPath reads it (null when missing): the index is a counter.
      lines.push(`const ${x} = a[${this.table.indexOf(path.parts.join('.'))}];`);
      for (const test of tests) lines.push(`if (!(${this.test(test, x)})) return false;`);
      return lines;
    }
    // readPath (field-path.ts) written out: a missing part, or one of no object, reads as null.
    let from = 'a';
    for (const part of path.parts) {
      const key = this.value(part);
      const own = path.checksOwnKeys
        ? `(hasOwn(${from}, ${key}) ? ${from}[${key}] : null)`
        : `${from}[${key}]`;
      const read = `typeof ${from} === "object" && ${from} !== null ? (isArray(${from}) ? readField(${from}, ${key}, false) : ${own}) : null`;
      lines.push(from === 'a' ? `let ${x} = ${read};` : `${x} = ${read};`);
      from = x;
    }
    lines.push(`if (${x} === undefined) ${x} = null;`);
    for (const test of tests) lines.push(`if (!(${this.test(test, x)})) return false;`);
    return lines;
  }

  /** One test of the value in `x`, as an expression. */
  private test(test: ValueTest, x: string): string {
    switch (test.kind) {
      case STRING_IS: {
        const text = this.value(test.text);
        return `typeof ${x} === "string" ? ${x} === ${text} : stringForm(${x}) === ${text}`;
      }
      case NUMBER_IS: {
        const number = this.value(test.number);
        return `typeof ${x} === "number" ? ${x} === ${number} : numberForm(${x}) === ${number}`;
      }
      case TRUTHINESS_IS:
        return `${x} !== null && truthy(${x}) === ${this.value(test.operand)}`;
      case EQUALS:
        return this.equals(test.operand, x);
      case NOT_EQUALS:
        return `!(${this.equals(test.operand, x)})`;
      case LESS:
      case LESS_OR_EQUAL:
      case GREATER:
      case GREATER_OR_EQUAL: {
        const order = ORDER[test.kind] as string;
        const operand = this.value(test.operand);
        // Number against number is the common case, and `compare` then is the plain order.
        const general = `compare(${x}, ${operand}) ${order} 0`;
        return typeof test.operand === 'number'
          ? `typeof ${x} === "number" ? ${x} ${order} ${operand} : ${general}`
          : general;
      }
      case VERSION_EQUALS:
      case VERSION_NOT_EQUALS:
      case VERSION_LESS:
      case VERSION_LESS_OR_EQUAL:
      case VERSION_GREATER:
      case VERSION_GREATER_OR_EQUAL:
        return `paddedVersionString(${x}) ${ORDER[test.kind]} ${this.value(test.text)}`;
      default:
        return this.otherTest(test, x);
    }
  }

  /** `test` for membership, groups, presence, type, patterns and the interpreter's tests. */
  private otherTest(test: ValueTest, x: string): string {
    switch (test.kind) {
      case IN:
        return this.member(test.members as Membership, x);
      case NOT_IN:
        return `!(${this.member(test.members as Membership, x)})`;
      case IN_GROUP:
        return `groupMembership(g, ${this.value(test.text)}).has(${x})`;
      case NOT_IN_GROUP:
        return `!groupMembership(g, ${this.value(test.text)}).has(${x})`;
      case EXISTS:
        return `${x} !== null`;
      case MISSING:
        return `${x} === null`;
      case TYPE_IS:
        return `typeName(${x}) === ${this.value(test.text)}`;
      case MATCHES_PATTERN: {
        const pattern = this.value(test.pattern);
        return `matchesPattern(${pattern}, ${x})`;
      }
      case NEVER:
        return 'false';
      default:
        // $all, $size, $elemMatch, $not: the interpreter's test, which reads the field itself,
        // or with a table is given the value read (a test without a path tests its input).
        return this.table === null
          ? `passAll(${this.value([test])}, a, g)`
          : `passAll(${this.value([new ValueTest(test.kind, { ...test, path: null })])}, ${x}, g)`;
    }
  }

  /** `sameValue(x, operand)`, as `===` when the operand is a string, number, boolean or null. */
  private equals(operand: unknown, x: string): string {
    if (operand === null) return `${x} === null`;
    const type = typeof operand;
    return type === 'string' || type === 'number' || type === 'boolean'
      ? `${x} === ${this.value(operand)}`
      : `sameValue(${x}, ${this.value(operand)})`;
  }

  /** Membership in a list; a short list of strings is compared with `===` in place. */
  private member(members: Membership, x: string): string {
    const has = `${this.value(members)}.has(${x})`;
    const few = members.fewStringsOnly;
    if (few === null || few.length === 0) return has;
    const equalities = few.map((item) => `${x} === ${this.value(item)}`).join(' || ');
    return `typeof ${x} === "string" ? ${equalities} : ${has}`;
  }
}

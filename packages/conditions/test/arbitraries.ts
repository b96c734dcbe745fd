// Random JSON, attributes and conditions for the property tests (never-throws.test.ts,
// generated-matcher.test.ts).
import fc from 'fast-check';
import { VALUE_OPERATORS } from '../src/index.ts';

// Keys that reach the evaluator's interesting paths: operators (known, unknown and logical),
// dot paths, inherited property names, and plain fields.
const key = fc.oneof(
  fc.constantFrom(...VALUE_OPERATORS, '$and', '$or', '$nor', '$foo', '$', 'a', 'a.b', 'b'),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'length', '0', ''),
  fc.string({ maxLength: 4 }),
);

export const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string({ maxLength: 6 }),
    fc.constantFrom('(', '[a', '1.2.3', 'v1.0.0-rc.1+b', 'string', 'array', '^a', '*'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));

export const groups = fc.dictionary(fc.constantFrom('g', 'h', 'constructor'), json.value, {
  maxKeys: 3,
});

/** A JSON value that is no object: what a condition may give a field as shorthand. */
const scalarOrList = json.value.filter(
  (v) => typeof v !== 'object' || v === null || Array.isArray(v),
);
const text = fc.oneof(
  fc.constantFrom('a', 'A', 'b', '', '1', '1.5', 'pro', '2.4.0', 'v1.2.3-rc.1', 'true'),
  fc.string({ maxLength: 3 }),
);
const number = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true }));
const stringOrNumber = fc.oneof(text, number);
const shortList = fc.array(fc.oneof(text, number, fc.boolean(), fc.constant(null)), {
  maxLength: 5,
});
const valueOperand = fc.oneof(stringOrNumber, fc.boolean(), fc.constant(null), shortList);

/** Operator objects of one operator each, every operator with operands `checkCondition` accepts. */
const operatorObject = fc.letrec<{ o: Record<string, unknown> }>((tie) => ({
  o: fc.oneof(
    { depthSize: 'small' },
    fc.record({ $eq: valueOperand }),
    fc.record({ $ne: valueOperand }),
    fc.record({ $gt: stringOrNumber }),
    fc.record({ $gte: stringOrNumber }),
    fc.record({ $lt: stringOrNumber }),
    fc.record({ $lte: stringOrNumber }),
    fc.record({ $in: fc.array(json.value, { maxLength: 3 }) }),
    fc.record({ $in: shortList }),
    fc.record({ $nin: shortList }),
    fc.record({ $ini: shortList }),
    fc.record({ $nini: shortList }),
    fc.record({ $exists: fc.boolean() }),
    fc.record({ $regex: fc.constantFrom('^a', 'b$', '', '1', '^(?:pro|team)$', '\\.') }),
    fc.record({ $regexi: fc.constantFrom('^a', 'b$', '', 'TRUE') }),
    fc.record({ $veq: stringOrNumber }),
    fc.record({ $vne: stringOrNumber }),
    fc.record({ $vgt: stringOrNumber }),
    fc.record({ $vgte: fc.constantFrom('1.2.3', 'v2', '0', '2.4.0') }),
    fc.record({ $vlt: stringOrNumber }),
    fc.record({ $vlte: stringOrNumber }),
    fc.record({ $inGroup: fc.constantFrom('g', 'h', 'constructor', 'missing') }),
    fc.record({ $notInGroup: fc.constantFrom('g', 'h', 'constructor') }),
    fc.record({ $type: fc.constantFrom('string', 'number', 'boolean', 'null', 'object', 'array') }),
    fc.record({ $all: fc.array(fc.oneof(text, number), { maxLength: 3 }) }),
    fc.record({ $alli: fc.array(text, { maxLength: 3 }) }),
    fc.record({ $size: fc.oneof(fc.integer({ min: 0, max: 3 }), tie('o')) }),
    fc.record({ $elemMatch: fc.record({ a: fc.integer({ min: 0, max: 2 }) }) }),
    fc.record({ $elemMatch: tie('o') }),
    fc.record({ $not: tie('o') }),
  ),
}));

/** Several operators on one field: two operator objects merged (still all `$` keys). */
const operand = fc.oneof(
  operatorObject.o,
  fc.tuple(operatorObject.o, operatorObject.o).map(([x, y]) => ({ ...x, ...y })),
  scalarOrList,
);

/** The fields conditions and attributes share: dot paths, array indexes, inherited names. */
export const field = fc.constantFrom(
  'a',
  'b',
  'c',
  'a.b',
  'a.0',
  'a.length',
  'b.c.d',
  '__proto__',
  'constructor',
  'toString',
);

/** Conditions `checkCondition` accepts, over every operator, logical ones included. */
export const readableCondition = fc.letrec<{ c: Record<string, unknown> }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small' },
    fc.dictionary(field, operand, { maxKeys: 3 }),
    fc.record({ $or: fc.array(tie('c'), { maxLength: 3 }) }),
    fc.record({ $nor: fc.array(tie('c'), { maxLength: 3 }) }),
    fc.record({ $and: fc.array(tie('c'), { maxLength: 3 }) }),
    fc.record({ $not: tie('c') }),
    fc.tuple(fc.dictionary(field, operand, { maxKeys: 2 }), tie('c')).map(([fields, c]) => ({
      ...fields,
      $or: [c],
    })),
  ),
}));

/** Attributes with values at the fields conditions read, of every JSON type. */
export const attributes = fc.letrec<{ v: unknown; o: Record<string, unknown> }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    text,
    number,
    fc.array(tie('v'), { maxLength: 3 }),
    tie('o'),
  ),
  o: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', '0', '__proto__', 'constructor'), tie('v'), {
    maxKeys: 4,
  }),
}));

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileCondition } from '../../src/compile-condition.ts';
import {
  codeGenerationRefused,
  generateMatcher,
  matcherSource,
} from '../../src/fast/generated-matcher.ts';
import { checkCondition, evalCondition, type SavedGroups } from '../../src/index.ts';
import { attributes, groups, readableCondition } from '../arbitraries.ts';
import { cases } from '../load-vectors.ts';

const NO_GROUPS: SavedGroups = {};

/** The generated function's answer; the test fails if none could be generated. */
function generated(condition: Record<string, unknown>, attrs: unknown, saved?: SavedGroups) {
  const matches = generateMatcher(condition);
  if (matches === null) throw new Error(`no function generated for ${JSON.stringify(condition)}`);
  return matches(attrs, saved ?? NO_GROUPS);
}

const interpreted = (condition: Record<string, unknown>, attrs: unknown, saved?: SavedGroups) =>
  compileCondition(condition)(attrs, saved ?? NO_GROUPS);

describe('the generated matcher', () => {
  it.each(['conditions.json', 'growthbook/eval-condition.json'])(
    'gives every readable case of %s its expected answer, as the interpreter does',
    (file) => {
      // evalCondition takes the generated function whenever one is generated: these cases are
      // the vectors of vectors.test.ts, and every readable one gets a function here.
      let readable = 0;
      for (const [name, condition, attrs, expected, saved] of cases(file)) {
        if (checkCondition(condition).length > 0) continue;
        readable++;
        const c = condition as Record<string, unknown>;
        expect(generated(c, attrs, saved), name).toBe(expected);
        expect(interpreted(c, attrs, saved), name).toBe(expected);
      }
      expect(readable).toBeGreaterThan(150);
      expect(codeGenerationRefused()).toBe(false);
    },
  );

  it('agrees with the interpreter on random conditions and attributes', () => {
    fc.assert(
      fc.property(readableCondition.c, attributes.o, groups, (c, attrs, saved) => {
        expect(checkCondition(c)).toEqual([]);
        expect(generated(c, attrs, saved)).toBe(interpreted(c, attrs, saved));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with the interpreter on attributes that are not objects', () => {
    fc.assert(
      fc.property(readableCondition.c, attributes.v, (c, attrs) => {
        expect(generated(c, attrs)).toBe(interpreted(c, attrs));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives each condition a source of its own, even two of one shape', () => {
    // V8 would otherwise share one script's feedback between them (docs/decisions/targeting.md#targeting-conditions).
    const one = matcherSource({ plan: { $in: ['pro'] } }).body;
    const other = matcherSource({ tier: { $in: ['team'] } }).body;
    expect(one).not.toBe(other);
    expect(withoutNumber(one)).toBe(withoutNumber(other));
  });

  it('reads each field once per operator object, and still tests every operator', () => {
    const c = { age: { $gte: 18, $lt: 65, $ne: 30 }, 'app.version': { $vgte: '2.4.0' } };
    const at = (age: unknown, version: unknown) => ({ age, app: { version } });
    expect(generated(c, at(18, '2.4.0'))).toBe(true);
    expect(generated(c, at(65, '2.4.0'))).toBe(false);
    expect(generated(c, at(30, '2.4.0'))).toBe(false);
    expect(generated(c, at(17, '2.4.0'))).toBe(false);
    expect(generated(c, at(40, '2.3.9'))).toBe(false);
    expect(generated(c, at('40', 'v2.10'))).toBe(true);
  });
});

// Field names, operands, group keys and attribute keys that would run code if the generator
// wrote them into its source, or break out of a string or comment there.
const PAYLOAD = 'globalThis.__arbiterPwned = 1';
const HOSTILE = [
  `"]; ${PAYLOAD}; //`,
  `']; ${PAYLOAD}; //`,
  `\`; ${PAYLOAD}; \``,
  `\${${PAYLOAD}}`,
  `*/ ${PAYLOAD}; /*`,
  `\n${PAYLOAD};\n//`,
  `\u2028${PAYLOAD};\u2029`,
  `</script><script>${PAYLOAD}</script>`,
  `\\"); ${PAYLOAD}; ("`,
  '\\',
  '"',
  '__proto__',
  'constructor',
  'toString',
  'a.__proto__.b',
  '\u0000',
];

/** Conditions on one field with one operand, over the operators the generator writes out. */
const TEMPLATES: [string, (field: string, operand: string) => Record<string, unknown>][] = [
  ['shorthand', (f, o) => ({ [f]: o })],
  ['$eq/$ne', (f, o) => ({ [f]: { $eq: o, $ne: `${o}!` } })],
  ['$in', (f, o) => ({ [f]: { $in: [o, 'x'] } })],
  ['$nin', (f, o) => ({ [f]: { $nin: [`${o}!`] } })],
  ['$ini', (f, o) => ({ [f]: { $ini: [o] } })],
  ['$gte/$lte', (f, o) => ({ [f]: { $gte: o, $lte: o } })],
  ['$regex', (f, o) => ({ [f]: { $regex: `^${o.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}$` } })],
  ['$vgte', (f, o) => ({ [f]: { $vgte: o } })],
  ['$inGroup', (f, o) => ({ [f]: { $inGroup: o } })],
  ['$exists under $or', (f) => ({ $or: [{ [f]: { $exists: true } }], $nor: [] })],
  ['$all', (f, o) => ({ [f]: { $all: [o] } })],
];

/**
 * The same name with plain parts: as many dot-separated parts, none of them hostile, and an
 * inherited name where it has one (such a path is read with own-key checks: a second form).
 */
const plain = (name: string) =>
  name
    .split('.')
    .map((part, i) => (part in Object.prototype ? 'constructor' : `p${i}`))
    .join('.');
const withoutNumber = (body: string) => body.replace(/condition matcher \d+/, '');

/** Attributes holding `value` at the field's path, built as a config parser builds them. */
function attributesAt(field: string, value: unknown): unknown {
  const wrapped = field
    .split('.')
    .reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
  return JSON.parse(JSON.stringify(wrapped, (_k, v) => v));
}

describe('hostile field names and operands', () => {
  it.each(
    HOSTILE.flatMap((h) => TEMPLATES.map(([what, make]) => [JSON.stringify(h), what, h, make])),
  )('%s in %s is data: the same answers as the interpreter, no code run', (_s, _w, h, make) => {
    const hostile = h as string;
    const condition = (make as (typeof TEMPLATES)[number][1])(hostile, hostile);
    expect(checkCondition(condition)).toEqual([]);
    const saved: SavedGroups = JSON.parse(JSON.stringify({ [hostile]: [hostile] }));
    const wrapped = JSON.stringify({ [hostile]: { [hostile]: hostile } });
    const inputs = [
      attributesAt(hostile, hostile),
      attributesAt(hostile, [hostile]),
      attributesAt(hostile, `${hostile}!`),
      attributesAt(hostile, null),
      JSON.parse(wrapped),
      {},
    ];
    const answers = inputs.map((attrs) => generated(condition, attrs, saved));
    expect(answers).toEqual(inputs.map((attrs) => interpreted(condition, attrs, saved)));
    expect(answers).toEqual(inputs.map((attrs) => evalCondition(attrs, condition, saved)));
    expect((globalThis as { __arbiterPwned?: unknown }).__arbiterPwned).toBeUndefined();
    // The source is the same as for plain names and operands: nothing of the data is in it.
    const plainCondition = (make as (typeof TEMPLATES)[number][1])(plain(hostile), 'plain');
    expect(withoutNumber(matcherSource(condition).body)).toBe(
      withoutNumber(matcherSource(plainCondition).body),
    );
  });

  it('matches a hostile name and operand where the interpreter does', () => {
    for (const h of HOSTILE) {
      const condition = { [h]: { $eq: h } };
      expect(generated(condition, attributesAt(h, h)), JSON.stringify(h)).toBe(
        interpreted(condition, attributesAt(h, h)),
      );
      // A name Object.prototype has is read as an own key only: found here, not inherited.
      if (!h.includes('.')) expect(generated(condition, attributesAt(h, h))).toBe(true);
    }
    expect(generated({ constructor: { $exists: true } }, {})).toBe(false);
    expect(generated({ 'toString.name': { $exists: true } }, {})).toBe(false);
  });
});

describe('where new Function is refused', () => {
  it('runs every case in the interpreter, after one refused attempt', () => {
    // node's --disallow-code-generation-from-strings throws EvalError from `new Function`, as
    // a browser does under a Content-Security-Policy without 'unsafe-eval'.
    const script = fileURLToPath(new URL('../fixtures/vectors-without-eval.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../../..', import.meta.url));
    const out = execFileSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--import', 'tsx', script],
      { cwd: root, encoding: 'utf8' },
    );
    const report = JSON.parse(out) as {
      evalRefused: boolean;
      cases: number;
      failures: string[];
      attempts: number;
      refused: boolean;
    };
    expect(report.evalRefused).toBe(true);
    expect(report.cases).toBeGreaterThan(400);
    expect(report.failures).toEqual([]);
    expect(report.refused).toBe(true);
    expect(report.attempts).toBe(1);
  });
});

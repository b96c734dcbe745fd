import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileCondition } from '../src/compile-condition.ts';
import {
  checkCondition,
  conditionMatcher,
  evalCondition,
  FieldTable,
  fieldsMatcher,
  patternReferences,
  unsafePattern,
} from '../src/index.ts';

interface Vectors {
  maxSubjectLength: number;
  patterns: Array<{ pattern: string; safe: boolean; reason?: string }>;
  evaluations: Array<{ pattern: string; value: string; matches: boolean }>;
  unportable: Array<{ pattern: string; value: string; reason: string }>;
}

const vectors = JSON.parse(
  readFileSync(new URL('../../../testdata/regex-safety.json', import.meta.url), 'utf8'),
) as Vectors;

const label = (s: string) => (s.length > 40 ? `${s.slice(0, 20)}… (${s.length})` : s);

describe('the regex safety vectors', () => {
  it.each(vectors.patterns.map((v) => [v.pattern, v] as const))('%s', (_, v) => {
    expect(unsafePattern(v.pattern)).toBe(v.safe ? undefined : v.reason);
    const problems = checkCondition({ s: { $regex: v.pattern } });
    expect(problems.length === 0).toBe(v.safe);
    if (!v.safe) expect(problems[0]?.message).toContain(v.reason);
  });

  it.each(vectors.evaluations.map((v) => [label(v.pattern), label(v.value), v] as const))(
    '%s on %s',
    (_, __, v) => {
      for (const operator of ['$regex', '$regexi']) {
        const condition = { s: { [operator]: v.pattern } };
        const attributes = { s: v.value };
        expect(evalCondition(attributes, condition)).toBe(v.matches);
        expect(conditionMatcher(condition)(attributes)).toBe(v.matches);
        expect(compileCondition(condition)(attributes, {})).toBe(v.matches);
        const table = new FieldTable();
        const matcher = fieldsMatcher(condition, table);
        expect(matcher?.(table.resolve(attributes) ?? [])).toBe(v.matches);
      }
    },
  );
});

describe('unsafePattern', () => {
  it.each([
    ['(a{1})+', 'a repeated group holds a quantifier'],
    ['((a)?)+', 'a repeated group holds a quantifier'],
    ['(?:(?:a|b))*', 'a repeated group holds an alternation'],
    ['(a+){3}', 'a repeated group holds a quantifier'],
    ['(a+)*?', 'a repeated group holds a quantifier'],
  ])('refuses %s', (pattern, reason) => {
    expect(unsafePattern(pattern)).toBe(reason);
  });

  it.each([
    '(a+){0,1}',
    '(a+){1,1}',
    '(a|b)',
    'a|b+',
    '(a)+|b+',
    'x{,3}',
    '(a){,3}',
    '\\(a+)+',
    '(a[+])+',
    '(',
    ')+',
    '((a+)',
  ])('lets %s through', (pattern) => {
    expect(unsafePattern(pattern)).toBeUndefined();
  });

  it('never evaluates an unsafe pattern, even where it would match', () => {
    const condition = { s: { $regex: '(a|a)*' } };
    expect(/(a|a)*/.test('')).toBe(true);
    expect(evalCondition({ s: '' }, condition)).toBe(false);
    // Unreadable as a whole, as an invalid pattern: $not around it matches no one either.
    expect(evalCondition({ s: 'b' }, { $not: condition })).toBe(false);
  });

  it('answers the catastrophic pattern promptly', () => {
    const attributes = { s: `${'a'.repeat(29)}!` };
    expect(evalCondition(attributes, { s: { $regex: '^(a+)+$' } })).toBe(false);
  });
});

describe('patternReferences', () => {
  it('finds every pattern, wherever it sits, and no data operand', () => {
    const condition = {
      $or: [{ a: { $regex: 'x' } }, { $not: { b: { $regexi: 'y' } } }],
      c: { $elemMatch: { d: { $regex: 'z' } } },
      e: { $in: [{ $regex: 'data' }] },
      f: { $all: [{ $regex: 'w' }] },
    };
    expect(patternReferences(condition)).toEqual([
      { pointer: '/$or/0/a/$regex', pattern: 'x', insensitive: false },
      { pointer: '/$or/1/$not/b/$regexi', pattern: 'y', insensitive: true },
      { pointer: '/c/$elemMatch/d/$regex', pattern: 'z', insensitive: false },
      { pointer: '/f/$all/0/$regex', pattern: 'w', insensitive: false },
    ]);
  });

  it.each(vectors.unportable.map((v) => [v.pattern, v] as const))(
    'unportable %s: unreadable, though JavaScript matches',
    (_, v) => {
      expect(new RegExp(v.pattern).test(v.value)).toBe(true);
      for (const operator of ['$regex', '$regexi']) {
        const condition = { s: { [operator]: v.pattern } };
        const beside = { $or: [condition, { absent: { $exists: false } }] };
        const attributes = { s: v.value };
        expect(checkCondition(condition)).toHaveLength(1);
        for (const c of [condition, beside]) {
          expect(evalCondition(attributes, c)).toBe(false);
          expect(conditionMatcher(c)(attributes)).toBe(false);
          const table = new FieldTable();
          const matcher = fieldsMatcher(c, table);
          expect(matcher?.(table.resolve(attributes) ?? [])).toBe(false);
        }
      }
    },
  );
});

import { describe, expect, it } from 'vitest';
import { checkCondition, evalCondition } from '../src/index.ts';
import { cases } from './load-vectors.ts';

const portable = (pattern: string) => checkCondition({ s: { $regex: pattern } });

describe('a pattern the clients would read differently is unreadable', () => {
  it.each([
    ['(?<y>[0-9]{4})', 'a named group'],
    ['(?<=a)b', 'a lookbehind'],
    ['(?<!a)b', 'a negative lookbehind'],
    ['\\Aabc', '\\A (a literal "A" in JavaScript)'],
    ['abc\\z', '\\z'],
    ['\\p{L}', '\\p{…} (a literal "p{L}" in JavaScript)'],
    ['\\v', '\\v (a class of line ends in Java)'],
    ['\\cA', '\\c'],
    ['\\q', 'an escaped letter that escapes nothing'],
    ['(a)\\1', 'a backreference'],
    ['\\0', 'an octal escape'],
    ['\\x4', 'a short \\x'],
    ['\\u00e', 'a short \\u'],
    ['[a[b]]', 'a class inside a class (a union in Java)'],
    ['[a&&b]', '&& inside a class (an intersection in Java)'],
    ['[\\b]', '\\b inside a class'],
    ['[^]', 'a class opening with ]'],
    ['a{', 'a { that is not a quantifier'],
    ['a{,3}', '{,n} (a quantifier in Python, a literal in JavaScript)'],
    ['\\é', 'a backslash before a non-ASCII letter'],
    ['[\\d-z]', 'a range from a class escape (a literal - in JavaScript, an error in Python)'],
    ['[\\w-a]', 'a range from \\w'],
    ['[a-\\d]', 'a range to a class escape'],
    ['[\\s-\\d]', 'a range between two class escapes'],
    ['[^\\D-x]', 'a range from a class escape in a negated class'],
    ['[\\x41-\\d]', 'a range from a hexadecimal escape to a class escape'],
    ['[--\\d]', 'a range from "-" to a class escape'],
    ['x[a-z][0-9\\W-]*[\\S-!]', 'a range with a class escape in a later class'],
  ])('refuses %s: %s', (pattern) => {
    expect(() => new RegExp(pattern)).not.toThrow();
    const problems = portable(pattern);
    expect(problems).toEqual([
      { pointer: '/s/$regex', message: expect.stringMatching(/every client/) },
    ]);
    // Unreadable, so the whole condition matches no one, even beside a passing branch.
    const condition = { $or: [{ s: { $regex: pattern } }, { a: 1 }] };
    expect(evalCondition({ a: 1, s: 'x' }, condition)).toBe(false);
    expect(evalCondition({ a: 1, s: 'x' }, { $or: [{ s: { $regex: 'y' } }, { a: 1 }] })).toBe(true);
  });

  it('checks $regexi too, inside nested conditions', () => {
    const condition = { $or: [{ a: { $elemMatch: { $regexi: '(?<=a)x' } } }] };
    expect(checkCondition(condition).map((p) => p.pointer)).toEqual([
      '/$or/0/a/$elemMatch/$regexi',
    ]);
  });

  it.each([
    '^[a-f0-9]{4,6}$',
    '^(?:free|pro)-\\d+$',
    '^a.*?b(?=c)(?!d)',
    '\\bword\\b\\s\\S\\w\\W\\D',
    '[\\[\\]\\-\\\\\\d\\s\\n\\t]',
    '\\x41\\u00e9\\.\\$\\^\\/\\{\\}',
    'a{2}b{3,}c{1,2}',
    'a]b}c',
    '[\\d-]',
    '[-\\d]',
    '[a-z\\d-]',
    '[\\d\\-z]',
    '[a-b-\\d]',
    '[\\d]-[a-z]',
    '',
  ])('accepts %s', (pattern) => {
    expect(portable(pattern)).toEqual([]);
  });

  it('accepts every pattern of both vector files that is valid', () => {
    const patterns: string[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) for (const item of value) collect(item);
      else if (typeof value === 'object' && value !== null) {
        for (const [key, item] of Object.entries(value)) {
          if ((key === '$regex' || key === '$regexi') && typeof item === 'string')
            patterns.push(item);
          collect(item);
        }
      }
    };
    for (const file of ['conditions.json', 'growthbook/eval-condition.json']) collect(cases(file));
    const valid = patterns.filter((p) => checkCondition({ s: { $regex: p } }).length === 0);
    expect(valid.length).toBeGreaterThan(30);
    for (const pattern of valid) expect(portable(pattern), pattern).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { checkCondition, evalCondition, VALUE_OPERATORS } from '../src/index.ts';

describe('checkCondition', () => {
  it('finds nothing wrong with a condition using every operator', () => {
    const condition = {
      $and: [
        { plan: 'pro', age: { $gte: 18, $lt: 65, $gt: 17, $lte: 64 } },
        { country: { $in: ['DE'], $nin: ['FR'], $ini: ['de'], $nini: ['fr'] } },
        { tags: { $all: ['a', { $regex: '^b' }], $alli: ['A'], $size: { $gt: 1 } } },
        { tags: { $elemMatch: { $eq: 'a' } }, orders: { $elemMatch: { total: { $gt: 1 } } } },
        { email: { $regex: '@x\\.com$', $regexi: '^ANN', $exists: true, $type: 'string' } },
        { v: { $veq: '1.0.0', $vne: 2, $vgt: '0.9', $vgte: '1', $vlt: '2', $vlte: '2.0.0' } },
        { id: { $inGroup: 'beta', $notInGroup: 'staff', $eq: 'u1', $ne: null } },
        { name: { $not: { $in: ['x'] } } },
      ],
      $or: [{ a: 1 }],
      $nor: [{ b: [1, 2] }, { c: { d: 1 } }],
      $not: { e: false },
    };
    expect(checkCondition(condition)).toEqual([]);
  });

  it.each([
    ['a condition that is not an object', 'x', ''],
    ['a condition that is an array', [{ a: 1 }], ''],
    ['a condition that is null', null, ''],
  ])('refuses %s', (_what, condition, pointer) => {
    expect(checkCondition(condition)).toEqual([{ pointer, message: expect.any(String) }]);
  });

  it.each([
    ['an unknown operator', { a: { $foo: 1 } }, '/a/$foo', /unknown operator \$foo/],
    ['a logical operator used on a field', { a: { $or: [] } }, '/a/$or', /unknown operator/],
    ['$and that is not a list', { $and: { a: 1 } }, '/$and', /list of conditions/],
    ['an $or element that is not an object', { $or: [{ a: 1 }, 5] }, '/$or/1', /object/],
    ['$not that is not an object', { $not: 'x' }, '/$not', /object/],
    ['an invalid $regex', { s: { $regex: '(abc' } }, '/s/$regex', /valid regular expression/],
    ['an invalid $regexi', { s: { $regexi: '[a' } }, '/s/$regexi', /valid regular expression/],
    ['a $regex that is not a string', { s: { $regex: 1 } }, '/s/$regex', /pattern/],
    ['$in that is not a list', { s: { $in: 'a' } }, '/s/$in', /a list/],
    ['$alli that is not a list', { s: { $alli: {} } }, '/s/$alli', /a list/],
    ['$exists that is not a boolean', { s: { $exists: 1 } }, '/s/$exists', /true or false/],
    ['$type with an unknown name', { s: { $type: 'integer' } }, '/s/$type', /string, number/],
    ['$gt with an array', { s: { $gt: [1] } }, '/s/$gt', /string or a number/],
    ['$vlt with null', { s: { $vlt: null } }, '/s/$vlt', /string or a number/],
    ['$inGroup that is not a key', { s: { $inGroup: ['a'] } }, '/s/$inGroup', /saved group/],
    ['$elemMatch that is not an object', { s: { $elemMatch: 1 } }, '/s/$elemMatch', /object/],
    ['operators mixed with fields', { s: { $gt: 1, t: 2 } }, '/s', /mixes operators/],
    ['an unknown operator inside $size', { s: { $size: { $x: 1 } } }, '/s/$size/$x', /unknown/],
    ['an unknown operator inside $not', { s: { $not: { $x: 1 } } }, '/s/$not/$x', /unknown/],
    [
      'an unknown operator in an $all element',
      { s: { $all: [1, { $x: 1 }] } },
      '/s/$all/1/$x',
      /unknown/,
    ],
    [
      'a bad condition inside $elemMatch',
      { s: { $elemMatch: { t: { $x: 1 } } } },
      '/s/$elemMatch/t/$x',
      /unknown/,
    ],
  ])('refuses %s, at its pointer', (_what, condition, pointer, message) => {
    const problems = checkCondition(condition);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.pointer).toBe(pointer);
    expect(problems[0]!.message).toMatch(message);
    expect(evalCondition({}, condition)).toBe(false);
  });

  it('escapes "~" and "/" in pointers (RFC 6901)', () => {
    expect(checkCondition({ 'a/b~c': { $x: 1 } })).toEqual([
      { pointer: '/a~1b~0c/$x', message: 'unknown operator $x' },
    ]);
  });

  it('lists every problem, not just the first', () => {
    const problems = checkCondition({
      $or: [{ a: { $x: 1 } }, { b: { $regex: '(' } }],
      c: { $in: 1 },
    });
    expect(problems.map((p) => p.pointer)).toEqual(['/$or/0/a/$x', '/$or/1/b/$regex', '/c/$in']);
  });

  it('reads a top-level key starting with $ that is no logical operator as a field', () => {
    expect(checkCondition({ $groups: { $in: ['a'] } })).toEqual([]);
  });

  it('knows each value operator, and no other', () => {
    for (const operator of VALUE_OPERATORS) {
      const problems = checkCondition({ a: { [operator]: null } });
      expect(problems.every((p) => !p.message.startsWith('unknown operator'))).toBe(true);
    }
    expect(VALUE_OPERATORS).toHaveLength(27);
  });
});

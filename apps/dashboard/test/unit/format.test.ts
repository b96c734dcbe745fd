import { describe, expect, it } from 'vitest';
import { byMetric, num, percent, pValue } from '../../src/pages/results/format.ts';

describe('number formatting on the results page', () => {
  it('num: three significant digits, exponents for the very large and small, a dash for none', () => {
    expect(num(4.56789)).toBe('4.57');
    expect(num(0.012345)).toBe('0.0123');
    expect(num(12345)).toBe('1.23e+4');
    expect(num(0.0001234)).toBe('1.23e-4');
    expect(num(0)).toBe('0');
    expect(num(2.5, 1)).toBe('3');
    for (const none of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY])
      expect(num(none)).toBe('—');
  });

  it('pValue: four decimals, and a bound below 0.0001', () => {
    expect(pValue(0.04321)).toBe('0.0432');
    expect(pValue(0.0001)).toBe('0.0001');
    expect(pValue(0.00009)).toBe('< 0.0001');
  });

  it('percent: signed, one decimal', () => {
    expect(percent(0.1234)).toBe('+12.3%');
    expect(percent(-0.05)).toBe('-5.0%');
    expect(percent(0)).toBe('+0.0%');
    expect(percent(null)).toBe('—');
  });

  it('byMetric: groups rows in the experiment’s metric order, unknown metrics after, empty ones dropped', () => {
    const rows = {
      'b::t': { metric: 'b', id: 1 },
      'x::t': { metric: 'x', id: 2 },
      'a::t': { metric: 'a', id: 3 },
      'a::u': { metric: 'a', id: 4 },
    };
    expect(byMetric(rows, ['a', 'b', 'unused'])).toEqual([
      ['a', [rows['a::t'], rows['a::u']]],
      ['b', [rows['b::t']]],
      ['x', [rows['x::t']]],
    ]);
  });
});

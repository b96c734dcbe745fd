import { describe, expect, it } from 'vitest';
import {
  armValue,
  byMetric,
  directionLabel,
  effectValue,
  intervalValue,
  metricTitle,
  moreDays,
  num,
  percent,
  pValue,
  titleOf,
} from '../../src/pages/results/format.ts';

describe('number formatting on the results page', () => {
  it('num: three significant digits, readable large and small numbers, a dash for none', () => {
    expect(num(4.56789)).toBe('4.57');
    expect(num(0.012345)).toBe('0.0123');
    expect(num(1040.4)).toBe('1,040');
    expect(num(-12345)).toBe('-12,345');
    expect(num(0.0001234)).toBe('0.000123');
    expect(num(999.6)).toBe('1,000');
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

  it('armValue: rates as percentages, latency in ms, cost in dollars, tokens; others plain', () => {
    expect(armValue('conversion', 0.104)).toBe('10.4%');
    expect(armValue('retention', 0.5)).toBe('50.0%');
    expect(armValue('error_rate', 0.0123)).toBe('1.2%');
    expect(armValue('latency', 512.345)).toBe('512 ms');
    expect(armValue('cost', 0.001)).toBe('$0.001');
    expect(armValue('tokens', 300.4)).toBe('300 tokens');
    expect(armValue('judge', 4.25)).toBe('4.25');
    expect(armValue('latency', null)).toBe('—');
  });

  it('effectValue: points for rates, ms, dollars and tokens, with a sign', () => {
    expect(effectValue('conversion', 0.075)).toBe('+7.5 pts');
    expect(effectValue('conversion', -0.0123)).toBe('\u22121.23 pts');
    expect(effectValue('latency', -70.04)).toBe('\u221270 ms');
    expect(effectValue('cost', 0.002)).toBe('+$0.002');
    expect(effectValue('cost', -0.0025)).toBe('\u2212$0.0025');
    expect(effectValue('cost', 0)).toBe('$0');
    expect(effectValue('tokens', 12)).toBe('+12 tokens');
    expect(effectValue('revenue', 1.5)).toBe('+1.5');
    expect(effectValue('latency', 0)).toBe('0 ms');
    expect(effectValue('latency', Number.NaN)).toBe('—');
    expect(intervalValue('latency', -80.1, -52.34)).toBe('\u221280.1 ms to \u221252.3 ms');
  });

  it('directionLabel and moreDays', () => {
    expect(directionLabel('increase')).toBe('↑ higher is better');
    expect(directionLabel('decrease')).toBe('↓ lower is better');
    expect(moreDays(1)).toBe('about 1 more day');
    expect(moreDays(6)).toBe('about 6 more days');
  });
});

describe('metric titles', () => {
  const base = { name: 'm', kind: 'latency' };
  it('names a quantile metric by its percentile and kind', () => {
    expect(metricTitle({ ...base, quantile: 0.95 })).toBe('p95 latency');
    expect(metricTitle({ ...base, kind: 'cost', quantile: 0.999 })).toBe('p99.9 cost');
    expect(metricTitle({ ...base, kind: 'tokens', quantile: 0.5 })).toBe('p50 tokens');
  });
  it('names a ratio metric by its parts', () => {
    const ratio = { name: 'r', kind: 'ratio' };
    expect(
      metricTitle({
        ...ratio,
        numerator: { of: 'cost' },
        denominator: { business_metric: 'conversion', of: 'count' },
      }),
    ).toBe('cost per conversion');
    expect(
      metricTitle({ ...ratio, numerator: { of: 'tokens' }, denominator: { of: 'calls' } }),
    ).toBe('tokens per call');
    expect(
      metricTitle({
        ...ratio,
        numerator: { business_metric: 'purchase', of: 'value' },
        denominator: { of: 'errors' },
      }),
    ).toBe('purchase value per error');
  });
  it('names any other metric by its name, also when looked up by name', () => {
    expect(metricTitle(base)).toBe('m');
    expect(titleOf([{ ...base, quantile: 0.9 }], 'm')).toBe('p90 latency');
    expect(titleOf([], 'unknown')).toBe('unknown');
  });
});

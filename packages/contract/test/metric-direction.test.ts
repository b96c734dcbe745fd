import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MDE,
  defaultDirection,
  METRIC_DIRECTIONS,
  METRIC_KINDS,
  metricDirection,
} from '../src/index.ts';

describe('metric direction', () => {
  it('defaults cost-like kinds to decrease and every other kind to increase', () => {
    const decrease = METRIC_KINDS.filter((k) => defaultDirection(k) === 'decrease');
    expect(decrease).toEqual(['latency', 'tokens', 'cost', 'error_rate']);
    for (const kind of ['conversion', 'retention', 'revenue', 'value', 'judge'])
      expect(defaultDirection(kind)).toBe('increase');
  });

  it('takes a metric’s stated direction over its kind’s default', () => {
    expect(metricDirection({ kind: 'latency' })).toBe('decrease');
    expect(metricDirection({ kind: 'latency', direction: 'increase' })).toBe('increase');
    expect(metricDirection({ kind: 'revenue', direction: 'decrease' })).toBe('decrease');
  });

  it('offers exactly two directions and a 5 % default minimum detectable effect', () => {
    expect(METRIC_DIRECTIONS).toEqual(['increase', 'decrease']);
    expect(DEFAULT_MDE).toBe(0.05);
  });
});

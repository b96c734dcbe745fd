import { describe, expect, it } from 'vitest';
import { pooledBinEdges } from '../src/index.ts';

describe('pooledBinEdges: the analysis SQL edges over a pooled range', () => {
  it('widens a single value to v ± 0.5 and spaces the edges evenly', () => {
    expect(pooledBinEdges(3, 3, 4)).toEqual([2.5, 2.75, 3, 3.25, 3.5]);
    expect(pooledBinEdges(0, 10, 5)).toEqual([0, 2, 4, 6, 8, 10]);
  });

  it('keeps the edges increasing where ± 0.5 and hi − lo no longer can', () => {
    for (const [lo, hi] of [
      [2 ** 60, 2 ** 60],
      [-1.7e308, 1.7e308],
    ] as const) {
      const edges = pooledBinEdges(lo, hi, 20) as number[];
      expect(edges).toHaveLength(21);
      for (let i = 1; i < edges.length; i++)
        expect(edges[i] as number).toBeGreaterThan(edges[i - 1] as number);
      expect(edges.every(Number.isFinite)).toBe(true);
    }
  });

  it('has no edges for an empty or non-finite range', () => {
    expect(pooledBinEdges(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 20)).toBeNull();
    expect(pooledBinEdges(1, Number.POSITIVE_INFINITY, 20)).toBeNull();
    expect(pooledBinEdges(Number.NEGATIVE_INFINITY, 1, 20)).toBeNull();
    expect(pooledBinEdges(Number.NaN, 1, 20)).toBeNull();
  });
});

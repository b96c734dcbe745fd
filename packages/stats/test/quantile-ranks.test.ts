import { describe, expect, it } from 'vitest';
import { quantileLevel, quantileRanks } from '../src/index.ts';
import { Draw } from './support/generate.ts';

describe('quantile levels', () => {
  it('takes levels with at most four decimals, in ten-thousandths', () => {
    expect([0.95, 0.5, 0.0001, 0.9999, 0.9512].map(quantileLevel)).toEqual([
      9500, 5000, 1, 9999, 9512,
    ]);
  });

  it('refuses five decimals, 0, 1 and non-numbers', () => {
    expect([0.12345, 0, 1, -0.5, 1.5, Number.NaN, Infinity].map(quantileLevel)).toEqual(
      Array(7).fill(null),
    );
  });
});

describe('order-statistic ranks', () => {
  it('are exact where floating point is not: ⌈100 × 0.07⌉ is 7', () => {
    expect(Math.ceil(100 * 0.07)).toBe(8); // what a float would pick
    expect(quantileRanks(100, 700).estimate).toBe(7);
  });

  it('stay inside 1..n on tiny samples', () => {
    expect(quantileRanks(1, 9500)).toEqual({ estimate: 1, lower: 1, upper: 1 });
    expect(quantileRanks(5, 9900)).toEqual({ estimate: 5, lower: 4, upper: 5 });
  });

  // The bounds against the definition, in rationals scaled to integers: lower is the largest k
  // with k ≤ nq − 1.96·√(nq(1−q)), upper the smallest k with k ≥ nq + 1.96·√(nq(1−q)).
  it('are the extreme integers on the right side of each bound (2,000 random n and q)', () => {
    const draw = new Draw(77);
    for (let i = 0; i < 2000; i++) {
      const n = draw.int(1, 2_000_000);
      const level = draw.int(1, 9999);
      const r = quantileRanks(n, level);
      const nq = BigInt(n) * BigInt(level);
      const spread = 196n ** 2n * BigInt(n) * BigInt(level) * BigInt(10_000 - level);
      const within = (gap: bigint) => gap >= 0n && gap * gap * 10_000n >= spread;
      const lowerOk = (k: number) => within(nq - BigInt(k) * 10_000n);
      const upperOk = (k: number) => within(BigInt(k) * 10_000n - nq);
      const what = `n ${n}, level ${level}: ${JSON.stringify(r)}`;
      expect(
        BigInt(r.estimate) * 10_000n >= nq && BigInt(r.estimate - 1) * 10_000n < nq,
        what,
      ).toBe(true);
      if (r.lower > 1) expect(lowerOk(r.lower) && !lowerOk(r.lower + 1), what).toBe(true);
      if (r.upper < n) expect(upperOk(r.upper) && !upperOk(r.upper - 1), what).toBe(true);
    }
  });
});

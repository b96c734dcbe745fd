import { describe, expect, it } from 'vitest';
import { chiSquareUpperP, normalTwoSidedP, studentTTwoSidedP, tQuantile975 } from '../src/index.ts';
import { createRng } from '../src/rng.ts';

// Reference values: scipy 1.16 (2*stats.t.sf(|t|, df), 2*stats.norm.sf(|z|), stats.chi2.sf,
// stats.t.ppf(0.975, df)), each compared at the relative tolerance named in the test.
describe('tail functions vs scipy [rel 1e-9]', () => {
  const close = (a: number, b: number, rel = 1e-9) =>
    expect(Math.abs(a - b)).toBeLessThanOrEqual(rel * Math.abs(b));
  it('student t two-sided tail, including tiny |t| and p near 1e-138', () => {
    close(studentTTwoSidedP(20, 398), 4.253823169713909e-62);
    close(studentTTwoSidedP(-2, 10), 0.07338803477074039);
    close(studentTTwoSidedP(0.001, 30), 0.9992087357664852);
    close(studentTTwoSidedP(1e-9, 5), 0.9999999992407866);
    close(studentTTwoSidedP(1e10, 3), 2.205315581687153e-30);
    close(studentTTwoSidedP(25, 1e6), 6.7423581675434e-138);
  });
  it('normal two-sided tail deep in the tail', () => {
    close(normalTwoSidedP(1.959963984540054), 0.05);
    close(normalTwoSidedP(-19), 1.705444790526195e-80);
  });
  it('chi-square upper tail', () => {
    close(chiSquareUpperP(370, 1), 1.8715184186364012e-82);
    close(chiSquareUpperP(3.84, 1), 0.05004352124870519);
  });
  it('t quantile, including df beyond what stdlib handles', () => {
    close(tQuantile975(1.3), 7.500529325562027);
    close(tQuantile975(50.7), 2.007872237567655);
    close(tQuantile975(1e300), 1.9599639845400538);
  });
  it('limits are finite', () => {
    expect(studentTTwoSidedP(Number.POSITIVE_INFINITY, 3)).toBe(0);
    expect(studentTTwoSidedP(0, 3)).toBe(1);
    expect(studentTTwoSidedP(Number.NaN, 3)).toBe(1);
    expect(normalTwoSidedP(Number.NaN)).toBe(1);
    expect(chiSquareUpperP(0, 2)).toBe(1);
    expect(chiSquareUpperP(Number.MAX_VALUE, 2)).toBe(0);
  });
});

describe('rng (xoshiro128**)', () => {
  it('is reproducible for a seed', () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(xs);
    expect(xs.every((x) => Number.isInteger(x) && x >= 0 && x < 2 ** 32)).toBe(true);
  });
  it('nextInt is roughly uniform [chi-square df 9, p > 1e-6]', () => {
    const r = createRng(7);
    const counts = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[r.nextInt(10)]++;
    const stat = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chiSquareUpperP(stat, 9)).toBeGreaterThan(1e-6);
  });
});

import { expect } from 'vitest';

/** |actual − expected| <= abs + rel·|expected|; the message names both values. */
export function expectNear(
  actual: number,
  expected: unknown,
  rel: number,
  abs: number,
  what: string,
): void {
  expect(typeof expected, `${what}: the reference returned ${String(expected)}`).toBe('number');
  const e = expected as number;
  const tol = abs + rel * Math.abs(e);
  expect(
    Math.abs(actual - e),
    `${what}: ours ${actual}, reference ${e}, tolerance ${tol}`,
  ).toBeLessThanOrEqual(tol);
}

/** expectNear with one relative tolerance for a whole file. */
export const nearWithin =
  (rel: number) =>
  (actual: number, expected: unknown, abs: number, what: string): void =>
    expectNear(actual, expected, rel, abs, what);

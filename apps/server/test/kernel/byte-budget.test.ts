import { describe, expect, it } from 'vitest';
import { fitByteBudget } from '../../src/kernel/byte-budget.ts';

const sized = (...bytes: number[]) => bytes.map((b, i) => ({ key: i, bytes: b }));

describe('fitByteBudget', () => {
  it('takes rows while their bytes together stay within the budget', () => {
    expect(fitByteBudget(sized(4, 4, 4, 4), 10, 10).map((r) => r.key)).toEqual([0, 1]);
    expect(fitByteBudget(sized(5, 5, 1), 10, 10).map((r) => r.key)).toEqual([0, 1]);
  });

  it('stops at the limit even under the budget', () => {
    expect(fitByteBudget(sized(1, 1, 1, 1), 3, 100).map((r) => r.key)).toEqual([0, 1, 2]);
  });

  it('serves one row over the budget on its own, so a page always moves on', () => {
    expect(fitByteBudget(sized(50, 1), 10, 10).map((r) => r.key)).toEqual([0]);
    expect(fitByteBudget([], 10, 10)).toEqual([]);
  });
});

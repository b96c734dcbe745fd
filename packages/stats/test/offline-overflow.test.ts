import { describe, expect, it } from 'vitest';
import { evaluateOffline, type OfflineValues, pairedComparison } from '../src/index.ts';
import { expectJsonSafe } from './support/json-safe.ts';

// Scores near 1e154 square past the largest double: the paired statistics must stay finite
// (the test is scale-free), and a figure that overflows all the same must fail the gate.

const BASELINE = [0.91, 0.84, 0.77, 0.95, 0.88, 0.8];
const TREATMENT = [0.7, 0.69, 0.52, 0.81, 0.6, 0.55]; // worse on 6 of 6 items

function values(scale: number, baseline = BASELINE, treatment = TREATMENT): OfflineValues {
  const byItem = (ys: number[]) =>
    new Map(ys.map((y, i) => [`item-${i}`, [y * scale] as readonly number[]]));
  return new Map([
    [
      'custom',
      new Map([
        ['control', byItem(baseline)],
        ['treatment', byItem(treatment)],
      ]),
    ],
  ]);
}

function evaluate(v: OfflineValues) {
  return evaluateOffline({
    scorers: [{ name: 'custom', direction: 'increase', margin: null }],
    variants: ['control', 'treatment'],
    repeats: 1,
    values: v,
  });
}

describe('offline statistics on huge scores', () => {
  for (const scale of [1e154, 1e200, 1e300]) {
    it(`a regression on 6 of 6 items scored around ${scale} fails the gate, as at scale 1`, () => {
      const small = evaluate(values(1));
      const huge = evaluate(values(scale));
      expectJsonSafe(huge);
      const c = huge.comparisons['custom::treatment']!;
      const ref = small.comparisons['custom::treatment']!;
      expect(ref.outcome).toBe('worse');
      expect(c.outcome).toBe('worse');
      expect(c.p_value).toBeCloseTo(ref.p_value as number, 12);
      expect((c.ci_high as number) / scale).toBeCloseTo(ref.ci_high as number, 12);
      expect((c.mdd as number) / scale).toBeCloseTo(ref.mdd as number, 12);
      expect(c.items_needed).toBe(ref.items_needed);
      expect(huge.gates.treatment).toEqual({
        passed: false,
        reasons: ['custom is worse than the baseline'],
      });
    });
  }

  it('scaling by a power of two changes no bit of the figures', () => {
    const items = BASELINE.map((b, i) => ({ id: `${i}`, baseline: b, treatment: TREATMENT[i]! }));
    const k = 2 ** 600;
    const big = items.map((i) => ({ ...i, baseline: i.baseline * k, treatment: i.treatment * k }));
    const a = pairedComparison(items, 'increase', 1);
    const b = pairedComparison(big, 'increase', 1);
    expect(b.p_value).toBe(a.p_value);
    expect(b.ci_low).toBe((a.ci_low as number) * k);
    expect(b.mean_difference).toBe((a.mean_difference as number) * k);
  });

  it('figures that overflow all the same fail the gate closed and leave no Infinity', () => {
    const max = Number.MAX_VALUE;
    const result = evaluate(values(1, [-max, -max, -max], [max, max, 0.9 * max]));
    expectJsonSafe(result);
    const c = result.comparisons['custom::treatment']!;
    expect(c.p_value).toBeNull();
    expect(c.ci_low).toBeNull();
    expect(c.improved_items).toBe(3);
    expect(result.gates.treatment).toEqual({
      passed: false,
      reasons: ['custom cannot be compared: its statistics overflow'],
    });
  });
});

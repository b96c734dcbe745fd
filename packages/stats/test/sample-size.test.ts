import { describe, expect, it } from 'vitest';
import { sampleSizePerArm, summarize, Z_80, Z_975 } from '../src/index.ts';
import { Draw } from './support/generate.ts';

/** Sample variance (ddof 1) by the textbook two-pass formula. */
function variance(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
}

describe('sampleSizePerArm', () => {
  it('uses the normal quantiles of 80 % power and two-sided 5 % (scipy.stats.norm.ppf)', () => {
    // scipy 1.16.3: norm.ppf(0.8) = 0.8416212335729143, norm.ppf(0.975) = 1.959963984540054.
    expect(Z_80).toBe(0.8416212335729143);
    expect(Z_975).toBe(1.959963984540054);
  });

  it('is ⌈(z₀.₉₇₅ + z₀.₈)² (s_c² + s_t²) / (mde · |mean_c|)²⌉ over the arms observed', () => {
    const draw = new Draw(2811);
    const control = draw.many(300, () => draw.normal(500, 60));
    const treatment = draw.many(280, () => draw.normal(490, 75));
    const mean = control.reduce((a, b) => a + b, 0) / control.length;
    const expected = Math.ceil(
      ((Z_975 + Z_80) ** 2 * (variance(control) + variance(treatment))) / (0.05 * mean) ** 2,
    );
    expect(sampleSizePerArm(summarize(control), summarize(treatment), 0.05)).toBe(expected);
    // A known case: unit variances, control mean 1, mde 5 %: 7.849 · 2 / 0.0025 = 6279.1.
    const unit = { n: 3, sum: 0, sumSquares: 2, shift: 1 };
    expect(sampleSizePerArm(unit, unit, 0.05)).toBe(6280);
  });

  it('takes the magnitude of a negative control mean', () => {
    const c = summarize([-10, -12, -8]);
    const positive = summarize([10, 12, 8]);
    expect(sampleSizePerArm(c, c, 0.1)).toBe(sampleSizePerArm(positive, positive, 0.1));
  });

  it('is null when the control mean is 0 or an arm has fewer than two users', () => {
    expect(sampleSizePerArm(summarize([-1, 1]), summarize([1, 2]), 0.05)).toBeNull();
    expect(sampleSizePerArm(summarize([1]), summarize([1, 2]), 0.05)).toBeNull();
    expect(sampleSizePerArm(summarize([1, 2]), summarize([]), 0.05)).toBeNull();
  });

  it('needs no users when neither arm varies', () => {
    expect(sampleSizePerArm(summarize([3, 3]), summarize([4, 4, 4]), 0.05)).toBe(0);
  });
});

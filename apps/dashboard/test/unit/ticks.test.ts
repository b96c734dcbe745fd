import { describe, expect, it } from 'vitest';
import { armColour } from '../../src/charts/arm-colour.ts';
import { countAxis, countLabel, niceTicks } from '../../src/charts/ticks.ts';

describe('axis ticks', () => {
  it('are round steps, evenly spaced, every one kept, covering the data', () => {
    expect(niceTicks(0, 790, 4, true)).toEqual([0, 200, 400, 600, 800]);
    expect(niceTicks(0, 1040, 4, true)).toEqual([0, 500, 1000, 1500]);
    expect(niceTicks(0, 3, 4, true)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(0, 0, 4, true)).toEqual([0, 1]);
    expect(niceTicks(-0.34, 0.12)).toEqual([-0.4, -0.2, 0, 0.2]);
    expect(niceTicks(-80.1, -52.3)).toEqual([-90, -80, -70, -60, -50]);
  });

  it('label counts with thousands separators, not exponents', () => {
    expect(countLabel(1040)).toBe('1,040');
    expect(countAxis([12, 1040, 7]).ticks).toEqual([0, 500, 1000, 1500]);
    expect(countAxis([12, 1040, 7]).tickFormatter(1500)).toBe('1,500');
  });
});

describe('arm colours', () => {
  it('follow the experiment’s variant order, whatever order a chart lists arms in', () => {
    const variants = ['control', 'fast', 'slim'];
    expect(armColour(variants, 'control')).not.toBe(armColour(variants, 'fast'));
    expect(new Set(variants.map((v) => armColour(variants, v))).size).toBe(3);
    expect(armColour(variants, 'unknown')).not.toBe(armColour(variants, 'slim'));
  });
});

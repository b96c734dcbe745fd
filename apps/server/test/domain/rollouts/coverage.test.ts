import { createBucketer } from '@arbiter/bucketing';
import { describe, expect, it } from 'vitest';
import {
  type EligibleExperiment,
  eligibility,
  eligibilityWorld,
} from '../../../src/domain/experiments/eligibility.ts';
import { coverageCheck } from '../../../src/domain/rollouts/coverage.ts';

/**
 * Coverage through the server's evaluation, at scale: its own hash admits the share it says,
 * raising it only adds users, and the arms keep their shares.
 */
const USERS = 100_000;
const world = eligibilityWorld({});
const SALT = 'ramp-salt';
const at = (coverage: number): EligibleExperiment => ({
  ranges: [
    { variant: 'control', start: 0, end: 5000 },
    { variant: 'treatment', start: 5000, end: 10_000 },
  ],
  bucketOf: createBucketer(SALT, 10_000),
  covers: coverageCheck(SALT, coverage),
});
const variantsAt = (coverage: number) => {
  const experiment = at(coverage);
  return Array.from({ length: USERS }, (_, i) => eligibility(experiment, `user-${i}`, {}, world));
};

describe('coverage at 100,000 users', () => {
  const ten = variantsAt(0.1);
  const half = variantsAt(0.5);
  const full = variantsAt(1);

  it('admits 10 % ± 0.5 % at 0.1 and 50 % ± 0.5 % at 0.5; the others are not_covered', () => {
    const admitted = (list: typeof ten) => list.filter((d) => d.variant !== null).length / USERS;
    expect(Math.abs(admitted(ten) - 0.1)).toBeLessThan(0.005);
    expect(Math.abs(admitted(half) - 0.5)).toBeLessThan(0.005);
    expect(admitted(full)).toBe(1);
    expect(new Set(ten.filter((d) => d.variant === null).map((d) => d.reason))).toEqual(
      new Set(['not_covered']),
    );
  });

  it('gives every user admitted at 0.1 the same arm at 0.5 and at 1', () => {
    const moved = ten.flatMap((d, i) =>
      d.variant !== null && (half[i]?.variant !== d.variant || full[i]?.variant !== d.variant)
        ? [i]
        : [],
    );
    expect(moved).toEqual([]);
    // And every user admitted at 0.1 is admitted at 0.5: raising coverage only adds users.
    expect(ten.every((d, i) => d.variant === null || half[i]?.variant !== null)).toBe(true);
  });

  it('keeps the arms’ shares: control is half of the admitted users at 0.1 (within 4 SD)', () => {
    const admitted = ten.filter((d) => d.variant !== null);
    const control = admitted.filter((d) => d.variant === 'control').length;
    const sd = Math.sqrt(admitted.length * 0.25);
    expect(Math.abs(control - admitted.length / 2)).toBeLessThan(4 * sd);
  });

  it('is a hash of its own: the coverage hash is independent of the arm’s bucket', () => {
    // Were coverage read from the arm's bucket, the 10 % admitted would all share one arm.
    const arms = new Set(ten.filter((d) => d.variant !== null).map((d) => d.variant));
    expect(arms).toEqual(new Set(['control', 'treatment']));
  });
});

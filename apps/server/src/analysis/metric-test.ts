import {
  histogram,
  mannWhitneyTest,
  permutationTest,
  summarize,
  type TwoSampleResult,
  twoProportionZTest,
  welchTest,
} from '@arbiter/stats';
import type { PlanLimit } from '../domain/plans.ts';

export type Method = 'welch_t' | 'mann_whitney' | 'permutation' | 'two_proportion_z';

export interface PairOutcome extends TwoSampleResult {
  permutations_used: number;
  sample_cap_used: boolean;
}

/** The seed of every permutation test: a re-run of the same data gives the same p-value. */
const PERMUTATION_SEED = 20_261_121;

/** Runs the chosen test on one (control, treatment) pair of per-user values. */
export function testPair(
  method: Method,
  control: readonly number[],
  treatment: readonly number[],
  plan: PlanLimit,
): PairOutcome {
  switch (method) {
    case 'welch_t':
      return {
        ...welchTest(summarize(control), summarize(treatment)),
        permutations_used: 0,
        sample_cap_used: false,
      };
    case 'mann_whitney':
      return {
        ...mannWhitneyTest(control, treatment),
        permutations_used: 0,
        sample_cap_used: false,
      };
    case 'permutation': {
      const r = permutationTest(control, treatment, {
        maxPermutations: plan.max_permutations,
        maxSamplePerArm: plan.max_sample_per_arm,
        seed: PERMUTATION_SEED,
      });
      return { ...r, permutations_used: r.permutations_used, sample_cap_used: r.sample_cap_used };
    }
    case 'two_proportion_z': {
      const arm = (values: readonly number[]) => ({
        n: values.length,
        successes: values.filter((v) => v > 0).length,
      });
      return {
        ...twoProportionZTest(arm(control), arm(treatment)),
        permutations_used: 0,
        sample_cap_used: false,
      };
    }
  }
}

export function distributionOf(arms: Record<string, readonly number[]>) {
  return histogram(arms);
}

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

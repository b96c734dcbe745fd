export { benjaminiHochberg } from './bh.ts';
export { type ChiSquareResult, chiSquareGoodnessOfFit } from './chi-square.ts';
export {
  chiSquareUpperP,
  normalTwoSidedP,
  studentTTwoSidedP,
  tQuantile975,
  Z_975,
} from './distributions.ts';
export { DEFAULT_HISTOGRAM_BINS, type Histogram, histogram } from './histogram.ts';
export { type MannWhitneyResult, mannWhitneyTest } from './mann-whitney.ts';
export {
  DEFAULT_PERMUTATION_SEED,
  type PermutationOptions,
  type PermutationResult,
  permutationTest,
} from './permutation.ts';
export type { StatReason, TestName, TwoSampleResult } from './result.ts';
export { type ArmSummary, EMPTY_SUMMARY, mergeSummaries, summarize } from './summary.ts';
export {
  type ProportionArm,
  type TwoProportionResult,
  twoProportionZTest,
} from './two-proportion.ts';
export { type WelchResult, welchTest } from './welch.ts';

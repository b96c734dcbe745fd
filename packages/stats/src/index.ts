export { benjaminiHochberg } from './bh.ts';
export { binomTestHalf } from './binomtest.ts';
export { type ChiSquareResult, chiSquareGoodnessOfFit } from './chi-square.ts';
export {
  type CovariateMoments,
  type CovariateSummary,
  covariateMoments,
  covariateSummary,
  EMPTY_COVARIATE_SUMMARY,
  mergeCovariateSummaries,
  metricSummary,
  summarizeWithCovariate,
} from './covariate-summary.ts';
export { type CupedReport, type CupedResult, cupedTest } from './cuped.ts';
export {
  decidePairs,
  type PairDecision,
  type PairPValues,
  SIGNIFICANCE_LEVEL,
} from './decisions.ts';
export {
  chiSquareUpperP,
  normalTwoSidedP,
  studentTQuantile,
  studentTTwoSidedP,
  tQuantile975,
  Z_80,
  Z_975,
} from './distributions.ts';
export { DEFAULT_HISTOGRAM_BINS, type Histogram, histogram } from './histogram.ts';
export { type MannWhitneyResult, mannWhitneyTest } from './mann-whitney.ts';
export {
  type NonDeterminism,
  nonDeterminism,
  UNSTABLE_ITEMS_MAX,
} from './non-determinism.ts';
export {
  evaluateOffline,
  type Gate,
  itemMeans,
  type NonDeterminismEntry,
  type OfflineComparison,
  type OfflineEvaluation,
  type OfflineInput,
  type OfflineScorer,
  type OfflineValues,
  type Outcome,
} from './offline-evaluation.ts';
export {
  type Direction,
  type PairedComparison,
  type PairedItem,
  type PairedTestName,
  pairedComparison,
  sampleSd,
} from './paired-comparison.ts';
export {
  DEFAULT_PERMUTATION_SEED,
  type PermutationOptions,
  type PermutationResult,
  permutationTest,
} from './permutation.ts';
export { pooledBinEdges } from './pooled-bin-edges.ts';
export {
  type QuantileArm,
  type QuantileResult,
  quantileTest,
} from './quantile.ts';
export {
  QUANTILE_SCALE,
  type QuantileRanks,
  quantileLevel,
  quantileRanks,
} from './quantile-ranks.ts';
export { summarizeQuantileArm } from './quantile-summary.ts';
export { type RatioResult, ratioTest } from './ratio.ts';
export type { StatReason, TestName, TwoSampleResult } from './result.ts';
export { sampleSizePerArm } from './sample-size.ts';
export {
  confidenceSequence,
  DEFAULT_SEQUENTIAL_TUNING,
  type Estimate,
  type SequentialOptions,
  type SequentialResult,
} from './sequential.ts';
export { SRM_HALT_P, type SrmResult, srmGate } from './srm.ts';
export {
  type ArmSummary,
  type Centred,
  centred,
  EMPTY_SUMMARY,
  meanDifference,
  mergeSummaries,
  summarize,
} from './summary.ts';
export {
  type SummaryPairInput,
  type SummaryPairResult,
  testSummaryPair,
} from './summary-pair.ts';
export {
  type ProportionArm,
  proportionArm,
  proportionEstimate,
  type TwoProportionResult,
  twoProportionZTest,
} from './two-proportion.ts';
export { type WelchResult, welchEstimate, welchTest } from './welch.ts';

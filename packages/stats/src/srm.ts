import { type ChiSquareResult, chiSquareGoodnessOfFit } from './chi-square.ts';

/** docs/decisions/analysis.md#tests-srm-and-fdr: an SRM p-value below this halts the run and withholds the metrics. */
export const SRM_HALT_P = 0.001;

export interface SrmResult extends ChiSquareResult {
  halted: boolean;
}

/**
 * The sample-ratio-mismatch gate over the arms' summaries (only their user counts matter):
 * Pearson chi-square of users per arm against the arms' bucket shares. A gate that could not
 * be computed (no users, one arm) does not halt; a share-0 arm with users does (p = 0).
 */
export function srmGate(
  arms: readonly { n: number }[],
  shares: readonly number[],
  threshold: number = SRM_HALT_P,
): SrmResult {
  const test = chiSquareGoodnessOfFit(
    arms.map((a) => a.n),
    shares,
  );
  return { ...test, halted: test.p_value < threshold };
}

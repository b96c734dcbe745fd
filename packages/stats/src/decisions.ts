import { benjaminiHochberg } from './bh.ts';

/** docs/decisions/analysis.md#tests-srm-and-fdr: significant means ok and the FDR-corrected p below this. */
export const SIGNIFICANCE_LEVEL = 0.05;

export interface PairPValues {
  ok: boolean;
  p_value: number;
  /** The always-valid p-value, when the run computed one. */
  sequential_p_value?: number | null;
}

export interface PairDecision {
  p_value_fdr: number;
  /** BH over the sequential p-values of the run; null when the pair has none. */
  sequential_p_value_fdr: number | null;
  significant: boolean;
}

/**
 * Benjamini–Hochberg across every (metric, treatment) pair of a run, on the fixed-horizon
 * p-values and, separately, on the sequential ones, and the decision: on the sequential
 * FDR p when `decideOn` is 'sequential' (a manual run, which may be repeated at will), else on
 * the fixed-horizon one. BH over always-valid p-values keeps FDR control at any stopping time
 * under independence or PRDS, as BH does with ordinary p-values.
 */
export function decidePairs(
  pairs: readonly PairPValues[],
  decideOn: 'fixed' | 'sequential',
  level: number = SIGNIFICANCE_LEVEL,
): PairDecision[] {
  const fdr = benjaminiHochberg(pairs.map((p) => p.p_value));
  const sequentialFdr = benjaminiHochberg(pairs.map((p) => p.sequential_p_value ?? 1));
  return pairs.map((pair, i) => {
    const hasSequential = pair.sequential_p_value !== undefined && pair.sequential_p_value !== null;
    const decisive = decideOn === 'sequential' ? (hasSequential ? sequentialFdr[i] : 1) : fdr[i];
    return {
      p_value_fdr: fdr[i] as number,
      sequential_p_value_fdr: hasSequential ? (sequentialFdr[i] as number) : null,
      significant: pair.ok && (decisive as number) < level,
    };
  });
}

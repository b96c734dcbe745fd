import { Outcome } from '../kernel/outcome.ts';

/**
 * Every expected failure of the analysis layer. "Collecting" is not one: it is a value of
 * `readResults`, which the route turns into its problem.
 */
export type AnalysisCode =
  | 'fold-behind'
  | 'manual-run-limit'
  | 'dimension-unknown'
  | 'breakdown-not-computed';

export class AnalysisError extends Outcome<AnalysisCode> {}

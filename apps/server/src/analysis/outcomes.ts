import { Outcome } from '../kernel/outcome.ts';

/** Every expected failure of the analysis layer. */
export type AnalysisCode = 'results-collecting' | 'fold-behind' | 'manual-run-limit';

export class AnalysisError extends Outcome<AnalysisCode> {}

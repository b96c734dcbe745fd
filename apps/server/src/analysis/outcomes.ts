import { Outcome } from '../kernel/outcome.ts';

/**
 * Every expected failure of the analysis layer. None yet: "collecting" is a value of
 * `readResults`, which the route turns into its problem.
 */
export type AnalysisCode = never;

export class AnalysisError extends Outcome<AnalysisCode> {}

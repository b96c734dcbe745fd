import type { ExperimentConfig } from '../../schemas/experiment-config.ts';
import { AnalysisError } from '../outcomes.ts';

/** Refuses a breakdown the experiment does not declare, naming the ones it does. */
export function checkDimension(config: Pick<ExperimentConfig, 'dimensions'>, dimension: string) {
  const declared = config.dimensions ?? [];
  if (declared.includes(dimension)) return;
  throw new AnalysisError(
    'dimension-unknown',
    declared.length === 0
      ? `The experiment declares no dimensions, so it has no breakdown by "${dimension}"; add it to the experiment's dimensions (model or metadata.<key>)`
      : `The experiment has no dimension "${dimension}"; it declares ${declared.join(', ')}`,
    { dimension, dimensions: declared },
  );
}

import type { MetricDirection } from '@arbiter/contract';
import type { MetricOutcome } from '../../schemas/analysis-run.ts';

/**
 * Whether a pair's effect is good news (docs/decisions/analysis.md#recommendations): `better` or `worse` only
 * when the pair is significant (the FDR-corrected p of the run's decision: fixed-horizon
 * nightly, always-valid on manual runs), then by the effect's sign against the direction.
 */
export function metricOutcome(
  significant: boolean,
  effect: number,
  direction: MetricDirection,
): MetricOutcome {
  // A NaN or zero effect has no sign to judge.
  if (!significant || !(Math.abs(effect) > 0)) return 'inconclusive';
  return effect > 0 === (direction === 'increase') ? 'better' : 'worse';
}

import type { MetricDirection } from '@arbiter/contract';
import type { MetricOutcome } from '../schemas/analysis-run.ts';

/**
 * Whether a pair's effect is good news (docs/decisions.md#recommendations): `better` or `worse` only
 * when the pair is significant (the FDR-corrected p of the run's decision: fixed-horizon
 * nightly, always-valid on manual runs), then by the effect's sign against the direction.
 */
export function metricOutcome(
  significant: boolean,
  effect: number,
  direction: MetricDirection,
): MetricOutcome {
  if (!significant || !(effect !== 0) || Number.isNaN(effect)) return 'inconclusive';
  const up = effect > 0;
  return up === (direction === 'increase') ? 'better' : 'worse';
}

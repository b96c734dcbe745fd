/**
 * The closed vocabularies of a MetricDefinition (docs/decisions.md#metric-definitions). The
 * server's config schema and the dashboard's metric editor both read them, so both sides offer
 * exactly the same choices.
 */
export const METRIC_KINDS = [
  'latency',
  'tokens',
  'cost',
  'error_rate',
  'conversion',
  'retention',
  'revenue',
  'value',
  'judge',
] as const;
/** Kinds whose per-user value is 0 or 1. */
export const BINARY_KINDS: readonly string[] = ['conversion', 'retention'];
/**
 * Kinds CUPED may adjust: value-like metrics whose per-user value over a pre-period is a
 * meaningful covariate (binary kinds, error rates and judge scores are not offered).
 */
export const CUPED_KINDS: readonly string[] = ['revenue', 'value', 'cost', 'latency', 'tokens'];
/** Longest pre-period CUPED may read, in days. */
export const MAX_COVARIATE_DAYS = 90;
export const METRIC_CATEGORIES = ['primary', 'secondary', 'guardrail'] as const;
export const METHODS = ['welch_t', 'mann_whitney', 'permutation', 'two_proportion_z'] as const;

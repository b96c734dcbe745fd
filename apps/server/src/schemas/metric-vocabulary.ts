/**
 * The closed vocabularies of a MetricDefinition (DESIGN §7). No dependencies: the dashboard
 * bundles this module for its metric editor, so both sides offer exactly the same choices.
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
export const METRIC_CATEGORIES = ['primary', 'secondary', 'guardrail'] as const;
export const METHODS = ['welch_t', 'mann_whitney', 'permutation', 'two_proportion_z'] as const;

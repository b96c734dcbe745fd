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
/** Which way a metric moving is good: `increase` or `decrease` is better. */
export const METRIC_DIRECTIONS = ['increase', 'decrease'] as const;
export type MetricDirection = (typeof METRIC_DIRECTIONS)[number];
/** Kinds where less is better (time, tokens, money spent, failures): their default direction. */
export const DECREASE_KINDS: readonly string[] = ['latency', 'tokens', 'cost', 'error_rate'];
/**
 * The relative minimum detectable effect a metric's sample-size estimate assumes when the
 * metric states none (5 % of the control mean).
 */
export const DEFAULT_MDE = 0.05;

/** The direction a metric of `kind` has when it states none. */
export function defaultDirection(kind: string): MetricDirection {
  return DECREASE_KINDS.includes(kind) ? 'decrease' : 'increase';
}

/** A metric's direction: the one it states, else its kind's default. */
export function metricDirection(metric: {
  kind: string;
  direction?: MetricDirection | undefined;
}): MetricDirection {
  return metric.direction ?? defaultDirection(metric.kind);
}

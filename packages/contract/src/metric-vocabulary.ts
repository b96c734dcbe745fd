/**
 * The closed vocabularies of a MetricDefinition (docs/decisions/experiments.md#metric-definitions). The
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
  'ratio',
] as const;
/** Kinds whose per-user value is 0 or 1. */
export const BINARY_KINDS: readonly string[] = ['conversion', 'retention'];
/**
 * Kinds CUPED may adjust: value-like metrics whose per-user value over a pre-period is a
 * meaningful covariate (binary kinds, error rates and judge scores are not offered).
 */
export const CUPED_KINDS: readonly string[] = ['revenue', 'value', 'cost', 'latency', 'tokens'];
/**
 * Kinds whose per-user values a metric may cap (winsorise): the value-like kinds, whose tails
 * are unbounded. Binary kinds and rates are bounded already; quantile and ratio metrics have no
 * per-user value to cap.
 */
export const CAP_KINDS: readonly string[] = ['revenue', 'value', 'cost', 'latency', 'tokens'];
/** Kinds a new metric caps by default (heavy-tailed model-call measures), unless `cap: null`. */
export const DEFAULT_CAP_KINDS: readonly string[] = ['latency', 'tokens', 'cost'];
/** The default cap: per-user values above the pooled 99.9th percentile are set to it. */
export const DEFAULT_CAP = { percentile: 0.999 } as const;
/** Longest pre-period CUPED may read, in days. */
export const MAX_COVARIATE_DAYS = 90;
/** Per-call kinds a metric may summarise by a quantile of all the arm's calls (p95 latency). */
export const QUANTILE_KINDS: readonly string[] = ['latency', 'tokens', 'cost'];
/**
 * What a ratio's numerator or denominator sums over a user's model calls in the window:
 * `cost_usd`, input + output tokens, `latency_ms`, the calls, or the calls with an error.
 */
export const RATIO_CALL_PARTS = ['cost', 'tokens', 'latency', 'calls', 'errors'] as const;
/** What a ratio part sums over a user's business events of one name: their number or values. */
export const RATIO_BUSINESS_PARTS = ['count', 'value'] as const;
export type RatioPart =
  | { of: (typeof RATIO_CALL_PARTS)[number] }
  | { business_metric: string; of: (typeof RATIO_BUSINESS_PARTS)[number] };
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

/**
 * Why `method` cannot test a metric, or null when it can. Quantile and ratio metrics have no
 * per-user value to rank: they are tested on the difference of the arms' quantiles or ratios
 * (welch_t, gbstats' test); two_proportion_z needs a metric whose per-user value is 0 or 1.
 */
export function methodRefusal(
  metric: { kind: string; quantile?: number | undefined },
  method: string,
): string | null {
  if (method === 'two_proportion_z' && !BINARY_KINDS.includes(metric.kind))
    return `two_proportion_z needs a binary kind (${BINARY_KINDS.join(', ')}), not ${metric.kind}`;
  const shape =
    metric.kind === 'ratio' ? 'ratio' : metric.quantile !== undefined ? 'quantile' : null;
  if (shape !== null && method !== 'welch_t')
    return `a ${shape} metric is tested on the difference of the arms' ${shape === 'ratio' ? 'ratios' : 'quantiles'} with welch_t; ${method} ranks per-user values, which a ${shape} metric does not have`;
  return null;
}

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

/** How many dimensions an experiment may declare for breakdowns. */
export const MAX_DIMENSIONS = 5;
/** A breakdown shows this many values (those with the most users); the rest are one slice. */
export const MAX_SLICE_VALUES = 20;
/** The slice of every value beyond the first MAX_SLICE_VALUES. */
export const OTHER_SLICE = '(other)';
/**
 * A dimension: `model` (the model call's model) or `metadata.<key>` (a string value of the
 * events' metadata under that key).
 */
export const DIMENSION_PATTERN = '^(model|metadata\\.[A-Za-z0-9_.:-]{1,128})$';

/** The metadata key of a `metadata.<key>` dimension, or null for `model`. */
export function dimensionMetadataKey(dimension: string): string | null {
  return dimension.startsWith('metadata.') ? dimension.slice('metadata.'.length) : null;
}

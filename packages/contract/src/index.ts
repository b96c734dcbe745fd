export {
  type AllocationSlice,
  type BucketMap,
  type BucketRun,
  clientRanges,
  initialBucketMap,
  type RelayoutOutcome,
  relayout,
} from './bucket-map.ts';
export {
  BUSINESS_FIELDS,
  CLIENT_SET_FIELDS,
  EVENT_FIELDS,
  EVENT_TYPES,
  type EventField,
  type EventType,
  MODEL_CALL_FIELDS,
} from './event-fields.ts';
export {
  BINARY_KINDS,
  CUPED_KINDS,
  DECREASE_KINDS,
  DEFAULT_MDE,
  defaultDirection,
  MAX_COVARIATE_DAYS,
  METHODS,
  METRIC_CATEGORIES,
  METRIC_DIRECTIONS,
  METRIC_KINDS,
  type MetricDirection,
  metricDirection,
} from './metric-vocabulary.ts';
export {
  EVENT_TEXT_LIMITS,
  FREE_FORM_JSON_MAX_BYTES,
  FREE_FORM_JSON_MAX_DEPTH,
  MAX_EVENTS_BODY_BYTES,
  MAX_EVENTS_PER_BATCH,
  MAX_FUTURE_SKEW_MS,
  MAX_HISTORY_AGE_MS,
  MAX_LIVE_AGE_MS,
  NUMERIC_DOMAINS,
  type NumericDomain,
  STORABLE_TEXT_PATTERN,
  type TextLimit,
} from './wire-limits.ts';
export { wireLimitsDocument, wireLimitsText } from './wire-limits-document.ts';

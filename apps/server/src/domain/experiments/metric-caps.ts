import { CAP_KINDS, DEFAULT_CAP, DEFAULT_CAP_KINDS } from '@arbiter/contract';
import type { MetricDefinition } from '../../schemas/experiment-config.ts';

interface FieldError {
  pointer: string;
  detail: string;
}

/**
 * The metrics with their caps decided (docs/decisions/analysis.md#capping): a metric that
 * states `cap` (an object, or null for none) keeps it; one that states nothing keeps the cap of
 * the metric of the same name in the version before (so an update that leaves a metric alone
 * changes nothing, and metrics stored before caps existed stay uncapped), and a new latency,
 * tokens or cost metric that is not a quantile gets the default percentile cap.
 */
export function withCapDefaults(
  metrics: readonly MetricDefinition[],
  before: readonly MetricDefinition[] = [],
): MetricDefinition[] {
  return metrics.map((m) => {
    if (m.cap !== undefined) return m;
    const previous = before.find((b) => b.name === m.name);
    if (previous !== undefined) return previous.cap === undefined ? m : { ...m, cap: previous.cap };
    if (DEFAULT_CAP_KINDS.includes(m.kind) && m.quantile === undefined)
      return { ...m, cap: { ...DEFAULT_CAP } };
    return m;
  });
}

/** What a metric's cap breaks beyond its schema: its kind, its shape, its bounds' order. */
export function capErrors(m: MetricDefinition, at: (field: string) => string): FieldError[] {
  const cap = m.cap;
  if (cap === undefined || cap === null) return [];
  const error = (field: string, detail: string) => [{ pointer: `${at('cap')}${field}`, detail }];
  if (!CAP_KINDS.includes(m.kind))
    return error('', `caps apply to per-user values of ${CAP_KINDS.join(', ')}, not ${m.kind}`);
  if (m.quantile !== undefined)
    return error('', 'a quantile metric has no per-user value to cap; set cap to null');
  const byPercentile = cap.percentile !== undefined;
  if (byPercentile === (cap.value !== undefined))
    return error('', 'states either percentile or value (the upper bound), not both or neither');
  if (byPercentile && cap.lower !== undefined)
    return error('/lower', 'goes with value; beside percentile use lower_percentile');
  if (!byPercentile && cap.lower_percentile !== undefined)
    return error('/lower_percentile', 'goes with percentile; beside value use lower');
  const upper = byPercentile ? cap.percentile : cap.value;
  const lower = byPercentile ? cap.lower_percentile : cap.lower;
  const field = byPercentile ? '/lower_percentile' : '/lower';
  if (lower !== undefined && upper !== undefined && !(lower < upper))
    return error(field, `must be below ${byPercentile ? 'percentile' : 'value'} (${upper})`);
  return [];
}

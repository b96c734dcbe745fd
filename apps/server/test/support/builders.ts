import type {
  ExperimentConfigInput,
  MetricDefinition,
} from '../../src/schemas/experiment-config.ts';

/**
 * Builders of the inputs tests and benchmarks share (bench/ imports this module): an
 * experiment config, a metric, events for N users. Each test varies what it is about and
 * leaves the rest to these, so a new required field is added in one place.
 */

/** A metric definition with the defaults every test leaves alone. */
export function metric(
  name: string,
  kind: MetricDefinition['kind'],
  method: MetricDefinition['method_default'],
  category: MetricDefinition['category'] = 'primary',
): MetricDefinition {
  return {
    name,
    kind,
    category,
    method_default: method,
    metric_version: 1,
    shared_org_wide: false,
  };
}

/** The metrics of an LLM feature's experiment: latency and tokens of the calls, a conversion. */
export const LLM_FEATURE_METRICS: MetricDefinition[] = [
  metric('latency', 'latency', 'welch_t', 'guardrail'),
  metric('tokens', 'tokens', 'welch_t', 'secondary'),
  metric('checkout', 'conversion', 'two_proportion_z'),
];

/** A valid config (two arms at 50/50, a prompt each) for tests to vary. */
export function experimentConfig(overrides: Record<string, unknown> = {}): ExperimentConfigInput {
  return {
    name: `exp-${Math.random().toString(36).slice(2, 10)}`,
    salt: 'salt-1',
    bucket_count: 1000,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ],
    variants: [
      { key: 'control', prompt: 'You are helpful.', variables: { temperature: 0.7 } },
      { key: 'treatment', prompt: 'Be concise.', variables: { temperature: 0.2 } },
    ],
    metrics: [
      metric('latency', 'latency', 'welch_t', 'guardrail'),
      { ...metric('checkout', 'conversion', 'two_proportion_z'), shared_org_wide: true },
    ],
    ...overrides,
  };
}

export interface UserEvents {
  /** Event ids are `<prefix>-<i>`. */
  prefix: string;
  /** The i-th user's id (default `user-<i>`). */
  userOf?: (i: number) => string;
  /** The instant of every event (default now). */
  timestamp?: string;
}

/** One exposure for each of `users` users. */
export function exposuresForUsers(experimentId: string, users: number, options: UserEvents) {
  const timestamp = options.timestamp ?? new Date().toISOString();
  const userOf = options.userOf ?? ((i: number) => `user-${i}`);
  return Array.from({ length: users }, (_, i) => ({
    event_id: `${options.prefix}-${i}`,
    type: 'exposure',
    experiment_id: experimentId,
    user_id: userOf(i),
    timestamp,
  }));
}

/** One model call for each of `users` users: 100–149 ms, 200 input and 50 output tokens. */
export function modelCallsForUsers(experimentId: string, users: number, options: UserEvents) {
  return exposuresForUsers(experimentId, users, options).map((event, i) => ({
    ...event,
    type: 'model_call',
    latency_ms: 100 + (i % 50),
    input_tokens: 200,
    output_tokens: 50,
    model: 'gpt-4o-mini',
  }));
}

/**
 * A CSV import of `rows` business events for the experiment named `experiment`, one user per
 * row, dated yesterday (inside any analysis window that started before today).
 */
export function businessEventsCsv(tag: string, rows: number, experiment = 'bulk'): string {
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const lines = ['event_id,type,experiment_id,user_id,timestamp,business_metric,value'];
  for (let i = 0; i < rows; i++) {
    lines.push(
      `${tag}-${i},business_event,${experiment},user-${i},${day}T10:00:00Z,revenue,${i % 97}`,
    );
  }
  return lines.join('\n');
}

import type { AcceptedEvent } from './event-schema.ts';

export type ColumnValue = string | number | boolean | Record<string, unknown> | null | undefined;

/** A column of `events` written at acceptance, with the PostgreSQL type and where its value comes from. */
interface EventColumn {
  column: string;
  type: string;
  value(e: AcceptedEvent): ColumnValue;
}

/**
 * The one list of what an accepted event stores: the COPY path and the statement path both
 * write these columns in this order. `org_id` comes from the key, so it is not here.
 */
export const EVENT_COLUMNS: readonly EventColumn[] = [
  { column: 'event_id', type: 'text', value: (e) => e.event_id },
  { column: 'type', type: 'text', value: (e) => e.type },
  { column: 'experiment_id', type: 'uuid', value: (e) => e.experiment_id },
  { column: 'user_id', type: 'text', value: (e) => e.user_id },
  { column: 'variant', type: 'text', value: (e) => e.variant },
  { column: 'occurred_at', type: 'timestamptz', value: (e) => e.timestamp },
  { column: 'received_at', type: 'timestamptz', value: (e) => e.received_at },
  { column: 'latency_ms', type: 'float8', value: (e) => e.latency_ms },
  { column: 'input_tokens', type: 'float8', value: (e) => e.input_tokens },
  { column: 'output_tokens', type: 'float8', value: (e) => e.output_tokens },
  { column: 'cached_input_tokens', type: 'float8', value: (e) => e.cached_input_tokens },
  { column: 'reasoning_tokens', type: 'float8', value: (e) => e.reasoning_tokens },
  { column: 'cost_usd', type: 'float8', value: (e) => e.cost_usd },
  { column: 'priced_by', type: 'text', value: (e) => e.priced_by },
  { column: 'model', type: 'text', value: (e) => e.model },
  { column: 'error', type: 'text', value: (e) => e.error },
  { column: 'prompt', type: 'text', value: (e) => e.prompt },
  { column: 'response', type: 'text', value: (e) => e.response },
  { column: 'text_key', type: 'text', value: (e) => e.text_key },
  { column: 'prompt_bytes', type: 'int4', value: (e) => e.prompt_bytes },
  { column: 'response_bytes', type: 'int4', value: (e) => e.response_bytes },
  { column: 'text_sha256', type: 'text', value: (e) => e.text_sha256 },
  { column: 'business_metric', type: 'text', value: (e) => e.business_metric },
  { column: 'value', type: 'float8', value: (e) => e.value },
  { column: 'metadata', type: 'jsonb', value: (e) => e.metadata },
  { column: 'is_test', type: 'boolean', value: (e) => e.is_test },
];

export const EVENT_COLUMN_LIST = ['org_id', ...EVENT_COLUMNS.map((c) => c.column)].join(', ');

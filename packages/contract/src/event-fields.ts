/**
 * The vocabulary of one event on the wire (docs/wire-format.md#post-v1events-publishable-or-secret-key):
 * its types and its fields. The server's event schema, and each client library's checks and
 * tests (through testdata/wire-limits.json), are held to these lists.
 */

export const EVENT_TYPES = ['exposure', 'model_call', 'business_event'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Fields only a model call carries. */
export const MODEL_CALL_FIELDS = [
  'latency_ms',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'reasoning_tokens',
  'cost_usd',
  'model',
  'error',
  'prompt',
  'response',
] as const;

/** Fields only a business event carries, and always does. */
export const BUSINESS_FIELDS = ['business_metric', 'value'] as const;

/** Every field an event may carry, in the order the wire format lists them. */
export const EVENT_FIELDS = [
  'event_id',
  'type',
  'experiment_id',
  'user_id',
  'timestamp',
  'variant',
  ...MODEL_CALL_FIELDS,
  ...BUSINESS_FIELDS,
  'metadata',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];

/** Fields a client library fills in itself when it queues an event; a caller never sets them. */
export const CLIENT_SET_FIELDS = [
  'event_id',
  'type',
  'timestamp',
] as const satisfies readonly EventField[];

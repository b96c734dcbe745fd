import { type Static, Type } from 'typebox';

export const EVENT_TYPES = ['exposure', 'model_call', 'business_event'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Batch limits of POST /v1/events (docs/wire-format.md). */
export const MAX_EVENTS_PER_BATCH = 1000;
export const MAX_EVENTS_BODY_BYTES = 1024 * 1024;
/** A clock ahead by more than this is a client bug, not an event from the future. */
export const MAX_FUTURE_SKEW_MS = 24 * 3600 * 1000;

const nonNegative = Type.Number({ minimum: 0 });

/** One event as sent (flat, DESIGN §8). Checked one by one, so a bad event never sinks its batch. */
export const EventSchema = Type.Object(
  {
    event_id: Type.String({ minLength: 1, maxLength: 128 }),
    type: Type.Enum(EVENT_TYPES),
    experiment_id: Type.String({ minLength: 1, maxLength: 200 }),
    user_id: Type.String({ minLength: 1, maxLength: 256 }),
    timestamp: Type.String({ format: 'date-time' }),
    variant: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    latency_ms: Type.Optional(nonNegative),
    input_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    output_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    cost_usd: Type.Optional(nonNegative),
    model: Type.Optional(Type.String({ maxLength: 200 })),
    error: Type.Optional(Type.Union([Type.String({ maxLength: 4000 }), Type.Null()])),
    prompt: Type.Optional(Type.String({ maxLength: 200_000 })),
    response: Type.Optional(Type.String({ maxLength: 200_000 })),
    business_metric: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    value: Type.Optional(Type.Number()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
export type IncomingEvent = Static<typeof EventSchema>;

/** An event that passed every check, with its experiment resolved to the canonical id. */
export interface AcceptedEvent {
  event_id: string;
  type: EventType;
  experiment_id: string;
  user_id: string;
  variant: string | null;
  timestamp: string;
  received_at: string;
  latency_ms?: number;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  model?: string;
  error?: string | null;
  prompt?: string;
  response?: string;
  business_metric?: string;
  value?: number;
  metadata?: Record<string, unknown>;
  is_test: boolean;
}

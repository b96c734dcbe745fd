import { type Static, Type } from 'typebox';
import { FreeFormObject } from '../schemas/free-form-json.ts';
import { Text } from '../schemas/text.ts';

export const EVENT_TYPES = ['exposure', 'model_call', 'business_event'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Batch limits of POST /v1/events (docs/wire-format.md). */
export const MAX_EVENTS_PER_BATCH = 1000;
export const MAX_EVENTS_BODY_BYTES = 1024 * 1024;
const HOUR_MS = 3600 * 1000;
/** A clock ahead by more than this is a client bug, not an event from the future. */
export const MAX_FUTURE_SKEW_MS = 24 * HOUR_MS;
/**
 * Oldest event POST /v1/events takes: the clients' offline replay window (24 h,
 * OFFLINE_REPLAY_WINDOW_MS in testdata/client-defaults.json) plus one hour of slack for a
 * client's clock and the last retries of a replay.
 */
export const MAX_LIVE_AGE_MS = 25 * HOUR_MS;
/** Oldest event an import or a signed business event takes: a year of history (and a day). */
export const MAX_HISTORY_AGE_MS = 366 * 24 * HOUR_MS;

/**
 * The domain of every numeric event field (docs/wire-format.md). Generous for real traffic and
 * small enough that every derived number stays finite: the aggregates are exact `numeric`, and
 * the analysis reads a user's sum back as a double, which with |value| <= 1e12 and any count of
 * events below 2^63 is at most ~1e31 (its square ~1e62), far below the double's 1.8e308.
 */
export const NUMERIC_DOMAINS = {
  /** One day: a call that took longer is a clock bug. */
  latency_ms: { minimum: 0, maximum: 86_400_000 },
  /** A billion tokens per call: far beyond any context window. */
  tokens: { minimum: 0, maximum: 1_000_000_000 },
  /** A million US dollars per call. */
  cost_usd: { minimum: 0, maximum: 1_000_000 },
  /** A business outcome (revenue, count, score) in either direction, in any currency unit. */
  value: { minimum: -1e12, maximum: 1e12 },
} as const;

export const LatencyMs = Type.Number({
  ...NUMERIC_DOMAINS.latency_ms,
  description: 'Milliseconds, 0 to 86,400,000 (one day)',
});
export const TokenCount = Type.Integer({
  ...NUMERIC_DOMAINS.tokens,
  description: 'Tokens, integer 0 to 1,000,000,000',
});
export const CostUsd = Type.Number({
  ...NUMERIC_DOMAINS.cost_usd,
  description: 'US dollars, 0 to 1,000,000',
});
export const BusinessValue = Type.Number({
  ...NUMERIC_DOMAINS.value,
  description: 'The outcome, -1e12 to 1e12',
});

/** One event as sent (flat, docs/wire-format.md#post-v1events-publishable-or-secret-key). Checked one by one, so a bad event never sinks its batch. */
export const EventSchema = Type.Object(
  {
    event_id: Text({ minLength: 1, maxLength: 128 }),
    type: Type.Enum(EVENT_TYPES),
    experiment_id: Text({ minLength: 1, maxLength: 200 }),
    user_id: Text({ minLength: 1, maxLength: 256 }),
    timestamp: Type.String({ format: 'date-time' }),
    variant: Type.Optional(Type.Union([Text({ minLength: 1, maxLength: 64 }), Type.Null()])),
    latency_ms: Type.Optional(LatencyMs),
    input_tokens: Type.Optional(TokenCount),
    output_tokens: Type.Optional(TokenCount),
    cost_usd: Type.Optional(CostUsd),
    model: Type.Optional(Text({ maxLength: 200 })),
    error: Type.Optional(Type.Union([Text({ maxLength: 4000 }), Type.Null()])),
    prompt: Type.Optional(Text({ maxLength: 200_000 })),
    response: Type.Optional(Text({ maxLength: 200_000 })),
    business_metric: Type.Optional(Text({ minLength: 1, maxLength: 128 })),
    value: Type.Optional(BusinessValue),
    metadata: Type.Optional(FreeFormObject('`arbiter_test: true` marks a test event')),
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

import {
  EVENT_TYPES,
  EVENT_TEXT_LIMITS as LENGTH,
  NUMERIC_DOMAINS,
  type NumericDomain,
} from '@arbiter/contract';
import { type Static, Type } from 'typebox';
import { FreeFormObject } from '../schemas/free-form-json.ts';
import { Text } from '../schemas/text.ts';

/** A text limit as JSON Schema keywords; a `minLength` of 0 goes without saying. */
const length = (field: keyof typeof LENGTH) => {
  const { minLength, maxLength } = LENGTH[field];
  return minLength > 0 ? { minLength, maxLength } : { maxLength };
};
/** A numeric domain as JSON Schema bounds (the integer rule is the schema's type). */
const bounds = ({ minimum, maximum }: NumericDomain) => ({ minimum, maximum });

export const LatencyMs = Type.Number({
  ...bounds(NUMERIC_DOMAINS.latency_ms),
  description: 'Milliseconds, 0 to 86,400,000 (one day)',
});
export const TokenCount = Type.Integer({
  ...bounds(NUMERIC_DOMAINS.input_tokens),
  description: 'Tokens, integer 0 to 1,000,000,000',
});
export const CostUsd = Type.Number({
  ...bounds(NUMERIC_DOMAINS.cost_usd),
  description: 'US dollars, 0 to 1,000,000',
});
export const BusinessValue = Type.Number({
  ...bounds(NUMERIC_DOMAINS.value),
  description: 'The outcome, -1e12 to 1e12',
});

/** One event as sent (flat, docs/wire-format.md#post-v1events-publishable-or-secret-key). Checked one by one, so a bad event never sinks its batch. */
export const EventSchema = Type.Object(
  {
    event_id: Text(length('event_id')),
    type: Type.Enum(EVENT_TYPES),
    experiment_id: Text(length('experiment_id')),
    user_id: Text(length('user_id')),
    timestamp: Type.String({ format: 'date-time' }),
    variant: Type.Optional(Type.Union([Text(length('variant')), Type.Null()])),
    latency_ms: Type.Optional(LatencyMs),
    input_tokens: Type.Optional(TokenCount),
    output_tokens: Type.Optional(TokenCount),
    cached_input_tokens: Type.Optional(
      Type.Integer({
        ...bounds(NUMERIC_DOMAINS.cached_input_tokens),
        description: "Of input_tokens, those read from the provider's prompt cache",
      }),
    ),
    reasoning_tokens: Type.Optional(
      Type.Integer({
        ...bounds(NUMERIC_DOMAINS.reasoning_tokens),
        description: 'Of output_tokens, those the model spent reasoning',
      }),
    ),
    cost_usd: Type.Optional(CostUsd),
    model: Type.Optional(Text(length('model'))),
    error: Type.Optional(Type.Union([Text(length('error')), Type.Null()])),
    prompt: Type.Optional(Text(length('prompt'))),
    response: Type.Optional(Text(length('response'))),
    business_metric: Type.Optional(Text(length('business_metric'))),
    value: Type.Optional(BusinessValue),
    metadata: Type.Optional(FreeFormObject('`arbiter_test: true` marks a test event')),
  },
  { additionalProperties: false },
);
export type IncomingEvent = Static<typeof EventSchema>;

/**
 * The same event when an object store keeps model text (ARBITER_BLOB_URL): the prompt and the
 * response may then be as long as the request's body limit allows; the contract's 200,000
 * units cap only text kept in the event row.
 */
export const EventSchemaTextInStore = Type.Object(
  { ...EventSchema.properties, prompt: Type.Optional(Text()), response: Type.Optional(Text()) },
  { additionalProperties: false },
);

/**
 * Where a model call's text went when an object store holds it (ARBITER_BLOB_URL): the
 * object's key, the UTF-8 bytes of the prompt and of the response in it (absent: the event
 * has none) and the SHA-256 of the object. The event then carries no `prompt`/`response`.
 */
export interface StoredTextRef {
  text_key: string;
  prompt_bytes?: number;
  response_bytes?: number;
  text_sha256: string;
}

/** An event that passed every check, with its experiment resolved to the canonical id. */
export type AcceptedEvent = Omit<IncomingEvent, 'variant'> & {
  variant: string | null;
  received_at: string;
  is_test: boolean;
  /**
   * The price row that gave `cost_usd` when the server priced the call from its tokens
   * (docs/model-prices.md); absent when the caller sent the cost or no row priced it.
   */
  priced_by?: string;
} & Partial<StoredTextRef>;

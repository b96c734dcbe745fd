import { describe, expect, it } from 'vitest';
import * as C from '../src/internal/constants.ts';
import { EVENT_TYPES, isStorableText, wireProblem } from '../src/internal/event-validation.ts';
import type { TrackPayload } from '../src/types.ts';
import { WIRE_LIMITS } from './support/wire-limits.ts';

/**
 * The client refuses exactly what the server refuses: every limit of testdata/wire-limits.json
 * (generated from packages/contract) is taken at its value and refused one step past it.
 */
const LIMITS = WIRE_LIMITS;

const base: TrackPayload = { experiment_id: 'checkout', user_id: 'user-1' };
/** The event's own fields: set by the client itself, never by a caller's payload. */
const CLIENT_SET = new Set(LIMITS.event.clientSet);
const textFields = Object.entries(LIMITS.event.text).filter(([f]) => !CLIENT_SET.has(f));
const numberFields = Object.entries(LIMITS.event.numbers);
/** A token part is counted inside its total: the part's domain is tested with its total at most. */
const TOTAL_OF: Record<string, string> = {
  cached_input_tokens: 'input_tokens',
  reasoning_tokens: 'output_tokens',
};
const withField = (field: string, value: unknown) => {
  const total = TOTAL_OF[field];
  const whole = total === undefined ? {} : { [total]: LIMITS.event.numbers[total]?.maximum };
  return { ...base, ...whole, [field]: value } as TrackPayload;
};

function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) node = { a: node };
  return node;
}

describe('the wire limits (testdata/wire-limits.json)', () => {
  it.each(textFields)('%s: takes its length limits and refuses one past them', (field, limit) => {
    expect(wireProblem(withField(field, 'x'.repeat(limit.maxLength)))).toBeNull();
    expect(wireProblem(withField(field, 'x'.repeat(limit.maxLength + 1)))).toContain(field);
    if (limit.minLength > 0) expect(wireProblem(withField(field, ''))).toContain(field);
    else expect(wireProblem(withField(field, ''))).toBeNull();
  });

  it.each(numberFields)('%s: takes its domain and refuses what lies outside', (field, domain) => {
    expect(wireProblem(withField(field, domain.minimum))).toBeNull();
    expect(wireProblem(withField(field, domain.maximum))).toBeNull();
    expect(wireProblem(withField(field, domain.maximum + 1))).toContain(field);
    expect(wireProblem(withField(field, domain.minimum - 1))).toContain(field);
    const fraction = wireProblem(withField(field, domain.maximum - 0.5));
    if (domain.integer) expect(fraction).toContain(field);
    else expect(fraction).toBeNull();
  });

  it('refuses a token part without its total or above it', () => {
    expect(wireProblem({ ...base, cached_input_tokens: 1 })).toContain('cached_input_tokens');
    expect(wireProblem({ ...base, input_tokens: 5, cached_input_tokens: 5 })).toBeNull();
    expect(wireProblem({ ...base, input_tokens: 5, cached_input_tokens: 6 })).toContain(
      'cached_input_tokens',
    );
    expect(wireProblem({ ...base, output_tokens: 2, reasoning_tokens: 3 })).toContain(
      'reasoning_tokens',
    );
  });

  it('metadata: takes the free-form JSON depth and size and refuses one past them', () => {
    const { maxDepth, maxBytes } = LIMITS.freeFormJson;
    const padded = (bytes: number) => ({ p: 'x'.repeat(bytes - '{"p":""}'.length) });
    expect(wireProblem({ ...base, metadata: nested(maxDepth) })).toBeNull();
    expect(wireProblem({ ...base, metadata: nested(maxDepth + 1) })).toContain('deeper');
    expect(wireProblem({ ...base, metadata: padded(maxBytes) })).toBeNull();
    expect(wireProblem({ ...base, metadata: padded(maxBytes + 1) })).toContain('bytes');
  });

  it('the text rule: storable text is what the shared pattern matches', () => {
    const rule = new RegExp(LIMITS.textRule.pattern, 'u');
    for (const text of ['', 'plain', 'a\u0000b', 'a\ud800b', '\udfff', '😀', 'é\u00a0ß'])
      expect(isStorableText(text), JSON.stringify(text)).toBe(rule.test(text));
  });

  it('the constants that carry a wire limit equal it', () => {
    expect(C.MAX_USER_ID_LENGTH).toBe(LIMITS.event.text.user_id?.maxLength);
    expect(C.MAX_MODEL_TEXT_LENGTH).toBe(LIMITS.event.text.prompt?.maxLength);
    expect(C.MAX_MODEL_TEXT_LENGTH).toBe(LIMITS.event.text.response?.maxLength);
    // An error message is cut shorter than the server takes: a stack trace is not a metric.
    expect(C.MAX_ERROR_LENGTH).toBeLessThanOrEqual(LIMITS.event.text.error?.maxLength ?? 0);
    expect(C.MAX_EVENT_BATCH_SIZE).toBe(LIMITS.batch.maxEvents);
    expect(C.MAX_EVENT_BATCH_BYTES).toBe(LIMITS.batch.maxBytes);
    // A replayed event must still be young enough for POST /v1/events.
    expect(C.OFFLINE_REPLAY_WINDOW_MS).toBeLessThan(LIMITS.timestamps.maxLiveAgeMs);
  });
});

describe('the event vocabulary (testdata/wire-limits.json)', () => {
  it('TrackPayload takes exactly the fields a caller may set', () => {
    // typed over TrackPayload's keys: the type check of the tests fails on a key missing or extra
    const payloadFields: Record<keyof TrackPayload, true> = {
      experiment_id: true,
      user_id: true,
      variant: true,
      latency_ms: true,
      input_tokens: true,
      output_tokens: true,
      cached_input_tokens: true,
      reasoning_tokens: true,
      cost_usd: true,
      model: true,
      error: true,
      prompt: true,
      response: true,
      business_metric: true,
      value: true,
      metadata: true,
    };
    const callerSet = LIMITS.event.fields.filter((f) => !CLIENT_SET.has(f));
    expect(Object.keys(payloadFields).sort()).toEqual(callerSet.sort());
  });

  it('track takes exactly the event types of the API', () => {
    expect([...EVENT_TYPES]).toEqual(LIMITS.event.types);
  });
});

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentOf } from '../../src/ingest/event-id-claims.ts';
import type { AcceptedEvent } from '../../src/ingest/event-schema.ts';
import { digestOf } from '../../src/ingest/kafka/claims-sql.ts';

/**
 * What an event says was first written as a copy of the event without `received_at` (and
 * without a server-priced cost), turned whole into JSON with every object's keys sorted. The
 * Kafka path keeps the SHA-256 of that text as each claim's digest, so a faster writer must make
 * the same text: a claim stored before must still match a retry of its event.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
function contentAsFirstWritten(event: AcceptedEvent): string {
  const { received_at: _received, ...content } = event;
  if (content.priced_by !== undefined) {
    delete content.priced_by;
    delete content.cost_usd;
  }
  return canonical(content);
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const metadata = fc.dictionary(
  fc.string({ maxLength: 6 }),
  fc.oneof(
    text,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(text, fc.integer(), fc.constant(null)), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(text, fc.integer()), { maxKeys: 3 }),
  ),
  { maxKeys: 5 },
);

/** Accepted events in any key order, any of the optional fields present or absent. */
const events = fc
  .record({
    event_id: text,
    type: fc.constantFrom('exposure', 'model_call', 'business_event'),
    experiment_id: optional(fc.uuid()),
    user_id: text,
    timestamp: fc.constant('2026-11-30T01:00:00.000Z'),
    variant: fc.option(text, { nil: null }),
    latency_ms: optional(fc.integer({ min: 0, max: 10_000 })),
    input_tokens: optional(fc.integer({ min: 0, max: 10_000 })),
    cost_usd: optional(fc.double({ min: 0, max: 10, noNaN: true })),
    model: optional(text),
    error: optional(fc.option(text, { nil: null })),
    prompt: optional(text),
    metadata: optional(metadata),
    received_at: fc.constant('2026-11-30T01:00:01.000Z'),
    is_test: fc.boolean(),
    priced_by: optional(text),
    text_key: optional(text),
    text_sha256: optional(fc.constant('ab'.repeat(32))),
  })
  .chain((event) =>
    fc
      .shuffledSubarray(Object.keys(event), { minLength: Object.keys(event).length })
      .map(
        (order) =>
          Object.fromEntries(
            order.map((k) => [k, (event as Record<string, unknown>)[k]]),
          ) as unknown as AcceptedEvent,
      ),
  );

describe("an event's content", () => {
  it('is the text the sorted copy of the whole event made, whatever the key order', () => {
    fc.assert(
      fc.property(events, (event) => {
        expect(contentOf(event)).toBe(contentAsFirstWritten(event));
      }),
      { numRuns: 2_000 },
    );
  });

  it('is the sorted copy for an event with a field no list knows, too', () => {
    const event = {
      event_id: 'e-1',
      type: 'exposure',
      user_id: 'u',
      zeta: 1,
      alpha: { b: 2, a: 1 },
      received_at: 'x',
    } as unknown as AcceptedEvent;
    expect(contentOf(event)).toBe(
      '{"alpha":{"a":1,"b":2},"event_id":"e-1","type":"exposure","user_id":"u","zeta":1}',
    );
  });

  it('leaves out the receipt and a server-priced cost, and keeps the digest a claim stored', () => {
    const event = {
      type: 'model_call',
      user_id: 'u-1',
      event_id: 'e-1',
      cost_usd: 0.5,
      priced_by: 'row-1',
      metadata: { z: [1, { y: 2, x: 1 }], a: null },
      received_at: '2026-11-30T01:00:01.000Z',
      is_test: false,
      variant: null,
    } as unknown as AcceptedEvent;
    const content =
      '{"event_id":"e-1","is_test":false,"metadata":{"a":null,"z":[1,{"x":1,"y":2}]},"type":"model_call","user_id":"u-1","variant":null}';
    expect(contentOf(event)).toBe(content);
    expect(digestOf(event)).toBe(createHash('sha256').update(content).digest('hex'));
  });
});

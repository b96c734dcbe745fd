import { describe, expect, it } from 'vitest';
import type { AcceptedEvent } from '../../../src/ingest/event-schema.ts';
import { envelopes, MAX_ENVELOPE_CHARS } from '../../../src/ingest/kafka/batch-producer.ts';
import type { LogRecord } from '../../../src/ingest/kafka/log-consumer.ts';
import { lowestOver } from '../../../src/ingest/kafka/shard-inbox.ts';
import { recordsOf, splitStretch } from '../../../src/ingest/kafka/stretch-parts.ts';

const event = (id: string, user: string) => ({ event_id: id, user_id: user }) as AcceptedEvent;

/** An envelope of one event per user, as the API produces for one request's partition. */
const envelope = (partition: number, offset: bigint, ...users: string[]) =>
  ({
    partition,
    offset,
    value: JSON.stringify({
      org_id: 'org',
      events: users.map((user, i) => event(`${partition}-${offset}-${i}`, user)),
    }),
  }) as unknown as LogRecord;
const record = (partition: number, offset: bigint, user: string) =>
  envelope(partition, offset, user);

// Users named by the shard they are on, for the test's own placement.
const positionOf = (_org: string, user: string) => Number(user.slice(1));

const idsOf = (value: string): string[] =>
  JSON.parse(value).events.map((e: AcceptedEvent) => e.event_id);

describe('a consumed stretch split by shard', () => {
  const records = [
    record(0, 5n, 's1'),
    record(1, 2n, 's0'),
    record(0, 6n, 's0'),
    record(0, 7n, 's1'),
    record(1, 3n, 's1'),
  ];

  it('puts each message on its user shard, in consumed order, and every shard gets the offsets past the stretch', () => {
    const stretch = splitStretch(records, 3, positionOf);
    expect(stretch.parts.map((p) => p.flatMap((m) => idsOf(m.value)))).toEqual([
      ['1-2-0', '0-6-0'],
      ['0-5-0', '0-7-0', '1-3-0'],
      [],
    ]);
    expect([...stretch.next]).toEqual([
      [0, 8n],
      [1, 4n],
    ]);
  });

  it("splits an envelope by its events' shards, and passes one wholly on a shard as read", () => {
    const mixed = envelope(0, 9n, 's0', 's1', 's0');
    const whole = envelope(0, 10n, 's1', 's1');
    const stretch = splitStretch([mixed, whole], 2, positionOf);
    expect(stretch.parts.map((p) => p.map((m) => idsOf(m.value)))).toEqual([
      [['0-9-0', '0-9-2']],
      [['0-9-1'], ['0-10-0', '0-10-1']],
    ]);
    expect(JSON.parse(stretch.parts[0]?.[0]?.value ?? '{}').org_id).toBe('org');
    expect(stretch.parts[1]?.[1]?.value).toBe(whole.value);
    expect(stretch.parts[0]?.[0]?.record).toBe(mixed);
  });

  it("keeps an envelope's mark for the fold's meter on each shard's part", () => {
    const marked = {
      partition: 0,
      offset: 11n,
      value: JSON.stringify({
        org_id: 'org',
        events: [event('m-0', 's0'), event('m-1', 's1')],
        meter_at_fold: true,
      }),
    } as unknown as LogRecord;
    const stretch = splitStretch([marked, envelope(0, 12n, 's0')], 2, positionOf);
    expect(stretch.parts.map((p) => p.map((m) => m.meterAtFold))).toEqual([[true, false], [true]]);
    for (const m of stretch.parts.flat().filter((m) => m.meterAtFold))
      expect(JSON.parse(m.value).meter_at_fold).toBe(true);
    expect(JSON.parse(envelopes('org', [event('a', 's0')], true)[0]?.value ?? '{}')).toEqual({
      org_id: 'org',
      events: [{ event_id: 'a', user_id: 's0' }],
      meter_at_fold: true,
    });
  });

  it('reads a message of one event, as produced before envelopes, and refuses one with none', () => {
    const old = {
      partition: 0,
      offset: 1n,
      value: JSON.stringify({ org_id: 'org', event: event('old-1', 's1') }),
    } as unknown as LogRecord;
    const stretch = splitStretch([old], 2, positionOf);
    expect(stretch.parts.map((p) => p.map((m) => m.value))).toEqual([[], [old.value]]);
    const empty = { partition: 0, offset: 2n, value: '{"org_id":"org"}' } as unknown as LogRecord;
    expect(() => splitStretch([empty], 2, positionOf)).toThrow(/carries no events/);
  });

  it("gives back the records of the shards that did not fold, and each partition's last record, in consumed order", () => {
    const stretch = splitStretch(records, 3, positionOf);
    const back = (positions: number[]) =>
      recordsOf(records, stretch, new Set(positions)).map((r) => `${r.partition}-${r.offset}`);
    expect(back([1])).toEqual(['0-5', '0-7', '1-3']);
    // Shard 0 holds neither partition's last message: those come back so it passes them.
    expect(back([0])).toEqual(['1-2', '0-6', '0-7', '1-3']);
    // Shard 2 had no message at all: only the ends come back, for its inbox to pass them.
    expect(back([2])).toEqual(['0-7', '1-3']);
    expect(back([])).toEqual([]);
  });

  it('resumes each partition at the lowest offset any shard recorded, and from the start where one recorded none', () => {
    const shard0 = new Map([
      [0, 10n],
      [1, 4n],
    ]);
    const shard1 = new Map([[0, 7n]]);
    expect([...lowestOver([shard0, shard1])]).toEqual([[0, 7n]]);
    expect([...lowestOver([shard0])]).toEqual([...shard0]);
    expect([...lowestOver([])]).toEqual([]);
  });
});

describe('envelopes of one request', () => {
  it('encodes a request under the bound as one envelope, keyed by its first event', () => {
    const events = [event('a', 'u1'), event('b', 'u2')];
    const [only, ...rest] = envelopes('org', events);
    expect(rest).toEqual([]);
    expect(only?.first.user_id).toBe('u1');
    expect(JSON.parse(only?.value ?? '{}')).toEqual({ org_id: 'org', events });
  });

  it('splits a request past the bound into envelopes under it, every event once and in order', () => {
    const pad = 'x'.repeat(40_000);
    const events = Array.from({ length: 20 }, (_, i) => ({ ...event(`e${i}`, 'u'), pad }));
    const out = envelopes('org', events as unknown as AcceptedEvent[]);
    expect(out.length).toBeGreaterThan(1);
    for (const e of out) expect(e.value.length).toBeLessThanOrEqual(MAX_ENVELOPE_CHARS);
    expect(out.flatMap((e) => idsOf(e.value))).toEqual(events.map((e) => e.event_id));
  });

  it('sends one event past the bound alone rather than refusing it', () => {
    const big = { ...event('big', 'u'), pad: 'y'.repeat(MAX_ENVELOPE_CHARS) };
    const out = envelopes('org', [big as unknown as AcceptedEvent]);
    expect(out.map((e) => idsOf(e.value))).toEqual([['big']]);
  });
});

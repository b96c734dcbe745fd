import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../src/ingest/kafka/log-consumer.ts';
import { lowestOver } from '../../../src/ingest/kafka/shard-inbox.ts';
import { recordsOf, splitStretch } from '../../../src/ingest/kafka/stretch-parts.ts';

const record = (partition: number, offset: bigint, user: string) =>
  ({
    partition,
    offset,
    value: JSON.stringify({
      org_id: 'org',
      event: { event_id: `${partition}-${offset}`, user_id: user },
    }),
  }) as unknown as LogRecord;

// Users named by the shard they are on, for the test's own placement.
const positionOf = (_org: string, user: string) => Number(user.slice(1));

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
    expect(stretch.parts.map((p) => p.map((m) => m.message.event.event_id))).toEqual([
      ['1-2', '0-6'],
      ['0-5', '0-7', '1-3'],
      [],
    ]);
    expect([...stretch.next]).toEqual([
      [0, 8n],
      [1, 4n],
    ]);
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

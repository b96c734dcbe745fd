import type { AcceptedEvent } from '../event-schema.ts';
import { envelopeOf, type LogMessage } from './batch-producer.ts';
import type { LogRecord } from './log-consumer.ts';

/**
 * A consumed message's events on one shard: `value` is an envelope (a `LogMessage` in JSON) of
 * those events, the record's own value when all its events are on that shard. `meterAtFold`:
 * the fold meters what it stores of them (they were not claimed at acceptance).
 */
export interface ConsumedMessage {
  record: LogRecord;
  value: string;
  meterAtFold: boolean;
}

/** The events a message carries: an envelope's, or the one of a message from before envelopes. */
export function eventsOf(message: LogMessage): readonly AcceptedEvent[] {
  if (message.events !== undefined) return message.events;
  if (message.event !== undefined) return [message.event];
  throw new Error('a message on the event topic carries no events');
}

/**
 * A stretch of consumed messages split by shard. `next` is, per partition, the offset past the
 * stretch's last message: every shard records it, the shards with no message of the stretch
 * too, so that each shard's inbox says "everything of mine before this offset is stored" and
 * the minimum over shards moves on.
 */
export interface SplitStretch {
  parts: ConsumedMessage[][];
  next: Map<number, bigint>;
  /** Per partition, the stretch's last record (the one `next` is past). */
  last: Map<number, LogRecord>;
}

export function splitStretch(
  records: readonly LogRecord[],
  shardCount: number,
  positionOf: (orgId: string, userId: string) => number,
): SplitStretch {
  const parts: ConsumedMessage[][] = Array.from({ length: shardCount }, () => []);
  const next = new Map<number, bigint>();
  const last = new Map<number, LogRecord>();
  for (const record of records) {
    const after = record.offset + 1n;
    if (after > (next.get(record.partition) ?? -1n)) {
      next.set(record.partition, after);
      last.set(record.partition, record);
    }
    const message = JSON.parse(record.value) as LogMessage;
    const events = eventsOf(message);
    const byShard = new Map<number, AcceptedEvent[]>();
    for (const event of events) {
      const position = positionOf(message.org_id, event.user_id);
      const on = byShard.get(position);
      if (on === undefined) byShard.set(position, [event]);
      else on.push(event);
    }
    const meterAtFold = message.meter_at_fold === true;
    for (const [position, on] of byShard) {
      const value =
        on.length === events.length
          ? record.value
          : JSON.stringify(envelopeOf(message.org_id, on, meterAtFold));
      parts[position]?.push({ record, value, meterAtFold });
    }
  }
  return { parts, next, last };
}

/**
 * What goes back to the reader for the shards in `positions`, which did not fold the stretch:
 * their records, and each partition's last record of the stretch, in the order consumed. The
 * last records are there so that these shards see the stretch's end again and record `next`
 * past it (with only their own records, a shard whose part was empty would never pass the
 * offsets of the others' messages, and its inbox would hold every shard's resume point back).
 * The shards that folded skip them again by their inbox.
 */
export function recordsOf(
  records: readonly LogRecord[],
  stretch: SplitStretch,
  positions: ReadonlySet<number>,
): LogRecord[] {
  if (positions.size === 0) return [];
  const kept = new Set([
    ...stretch.parts.flatMap((part, p) => (positions.has(p) ? part.map((m) => m.record) : [])),
    ...stretch.last.values(),
  ]);
  return records.filter((r) => kept.has(r));
}

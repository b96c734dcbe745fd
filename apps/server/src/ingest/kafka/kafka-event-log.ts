import { type Database, rows } from '../../db/connect.ts';
import type {
  AcknowledgedMark,
  AppendRequest,
  AppendResult,
  EventLog,
  FoldOptions,
  FoldResult,
} from '../event-log.ts';
import { foldIsolating, isDataError } from '../fold-isolation.ts';
import { foldStatement, lockWatermark, lockWatermarkIfFree, unfoldedCount } from '../fold-sql.ts';
import { lockedMonthUsage } from '../meter-lock.ts';
import { uniqueById } from '../postgres-event-log.ts';
import { meterStatement } from '../store-sql.ts';
import { BatchProducer, type LogMessage } from './batch-producer.ts';
import { claim, claimedDigests, digestOf } from './claims-sql.ts';
import { advanceInbox, inboxOffsets, storeConsumed } from './consumed-sql.ts';
import { LogConsumer, type LogRecord } from './log-consumer.ts';

/** Rows the unmetered path spreads its meter increments over (as the single-node log). */
const METER_SHARDS = 16;
/** Messages one fold takes from the topic at most. */
const MESSAGES_PER_FOLD = 5_000;

export interface KafkaLogSettings {
  brokers: string[];
  topic: string;
}

/**
 * The distributed adapter: a Kafka topic is the log. An append claims the batch's new ids and
 * meters them in one PostgreSQL transaction, produces them (idempotent, acks=all) and commits
 * only after the brokers acknowledged; a failed produce rolls the claim and the meter back and
 * surfaces as EventLogUnavailable. A fold (in `ARBITER_INGEST_WORKER` processes) stores a
 * stretch of consumed messages in `events`, records the offsets past them in `ingest_inbox`
 * and folds, in one transaction.
 */
export class KafkaEventLog implements EventLog {
  private readonly appendListeners: Array<() => void> = [];
  private readonly producer: BatchProducer;
  private readonly consumer: LogConsumer;
  private consuming = false;

  constructor(
    private readonly db: Database,
    private readonly settings: KafkaLogSettings,
  ) {
    this.producer = new BatchProducer(settings.brokers, settings.topic);
    this.consumer = new LogConsumer(settings.brokers, settings.topic);
  }

  onAppend(listener: () => void): void {
    this.appendListeners.push(listener);
  }

  /** Makes this process's folds read the topic (the fold workers); other processes only produce. */
  consume(): void {
    this.consuming = true;
  }

  async append(request: AppendRequest): Promise<AppendResult> {
    const result = await this.db.transaction((tx) => this.claimAndProduce(tx, request));
    if (result.appended.length > 0) for (const wake of this.appendListeners) wake();
    return result;
  }

  private async claimAndProduce(
    tx: Database,
    { orgId, events, month, allowance }: AppendRequest,
  ): Promise<AppendResult> {
    const { unique, repeats } = uniqueById(events);
    const used = allowance === null ? 0 : await lockedMonthUsage(tx, orgId, month);
    const earlier = await claimedDigests(
      tx,
      orgId,
      unique.map((e) => e.event_id),
    );
    const fresh = unique.filter((e) => !earlier.has(e.event_id));
    const room =
      allowance === null ? fresh.length : Math.max(0, Math.min(fresh.length, allowance - used));
    const won = room > 0 ? await claim(tx, orgId, fresh.slice(0, room)) : new Set<string>();
    const appended = fresh.slice(0, room).filter((e) => won.has(e.event_id));
    // Claimed by a concurrent request since the first read: a retry racing its first copy.
    const raced = fresh.slice(0, room).filter((e) => !won.has(e.event_id));
    for (const [id, digest] of await claimedDigests(
      tx,
      orgId,
      raced.map((e) => e.event_id),
    ))
      earlier.set(id, digest);
    if (appended.length > 0) {
      const shard = allowance === null ? Math.floor(Math.random() * METER_SHARDS) : 0;
      await tx.execute(meterStatement(orgId, month, shard, appended.length));
      await this.producer.send(orgId, appended);
    }
    const stored = unique.filter((e) => earlier.has(e.event_id));
    return {
      appended: appended.map((e) => e.event_id),
      duplicates: [...stored.map((e) => e.event_id), ...repeats],
      conflicts: stored
        .filter((e) => earlier.get(e.event_id) !== digestOf(e))
        .map((e) => e.event_id),
      refused: fresh.slice(room).map((e) => e.event_id),
    };
  }

  async fold(maxTransactions: number, options: FoldOptions = {}): Promise<FoldResult> {
    const records = this.consuming ? await this.nextStretch() : [];
    try {
      try {
        return await this.foldStretch(records, maxTransactions, options, false);
      } catch (error) {
        if (!isDataError(error)) throw error;
        // A row the fold cannot take: fold the stretch again row by row and set that row aside.
        return await this.foldStretch(records, maxTransactions, options, true);
      }
    } catch (error) {
      // Nothing of the stretch committed: it is folded by the next try, not lost with this one.
      this.consumer.giveBack(records);
      throw error;
    }
  }

  private async nextStretch(): Promise<LogRecord[]> {
    if (!this.consumer.started) await this.consumer.start(await this.inboxPassed());
    return this.consumer.take(MESSAGES_PER_FOLD);
  }

  /**
   * One transaction: the fold's lock, the stretch's messages the inbox has not passed stored,
   * the inbox moved past them, and the fold of the queue (which now holds this transaction).
   */
  private async foldStretch(
    records: LogRecord[],
    maxTransactions: number,
    options: FoldOptions,
    isolating: boolean,
  ): Promise<FoldResult> {
    const lock = options.ifFree ? lockWatermarkIfFree : lockWatermark;
    return this.db.transaction(async (tx) => {
      if ((await rows(tx, lock)).length === 0) {
        this.consumer.giveBack(records);
        return { events: 0, quarantined: [], busy: true };
      }
      if (records.length > 0) await this.storeStretch(tx, records);
      if (isolating) return foldIsolating(tx, maxTransactions);
      const [result] = await rows<{ events: number }>(tx, foldStatement(maxTransactions));
      return { events: Number(result?.events ?? 0), quarantined: [] };
    });
  }

  private async storeStretch(tx: Database, records: LogRecord[]): Promise<void> {
    const topic = this.settings.topic;
    const stored = await rows<{ partition: number; next_offset: string }>(tx, inboxOffsets(topic));
    const passed = new Map(stored.map((s) => [s.partition, BigInt(s.next_offset)]));
    const next = new Map<number, bigint>();
    const fresh: LogMessage[] = [];
    for (const record of records) {
      const after = record.offset + 1n;
      if (after > (next.get(record.partition) ?? -1n)) next.set(record.partition, after);
      if (record.offset < (passed.get(record.partition) ?? 0n)) continue;
      fresh.push(JSON.parse(record.value) as LogMessage);
    }
    if (fresh.length > 0) await tx.execute(storeConsumed(fresh));
    await tx.execute(advanceInbox(topic, next));
  }

  /**
   * Events on the topic no fold has stored yet (its end offsets less the inbox's; a partition
   * with no inbox row counts from offset 0, an over-estimate once Kafka's retention has deleted
   * its start), plus events stored and not folded yet.
   */
  async depth(): Promise<number> {
    const ends = await this.consumer.endOffsets();
    const passed = await this.inboxPassed();
    let lag = 0n;
    for (const [partition, end] of ends.entries()) {
      const behind = end - (passed.get(partition) ?? 0n);
      if (behind > 0n) lag += behind;
    }
    const [pending] = await rows<{ n: number }>(this.db, unfoldedCount);
    return Number(lag) + Number(pending?.n ?? 0);
  }

  /**
   * The topic's end offsets now: stored once the inbox has passed them on every partition that
   * holds messages (an empty one, its start at its end, has nothing to consume). The fold
   * stores and records a stretch's offsets in one transaction, so passed means stored.
   */
  async markAcknowledged(): Promise<AcknowledgedMark> {
    const [ends, starts] = await Promise.all([
      this.consumer.endOffsets(),
      this.consumer.startOffsets(),
    ]);
    const waiting = ends.flatMap((end, partition) =>
      end > (starts[partition] ?? 0n) ? [{ partition, end }] : [],
    );
    return {
      stored: async () => {
        const passed = await this.inboxPassed();
        return waiting.every(({ partition, end }) => (passed.get(partition) ?? 0n) >= end);
      },
    };
  }

  /** The next offset to read per partition, as the fold workers recorded it. */
  private async inboxPassed(): Promise<Map<number, bigint>> {
    const stored = await rows<{ partition: number; next_offset: string }>(
      this.db,
      inboxOffsets(this.settings.topic),
    );
    return new Map(stored.map((s) => [s.partition, BigInt(s.next_offset)]));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.producer.close(), this.consumer.close()]);
  }
}

import { type Database, rows } from '../../db/connect.ts';
import { type EventShards, onEveryShard } from '../../db/shards/every-shard.ts';
import type { ShardSet } from '../../db/shards/shard-set.ts';
import { isShardUnreachable } from '../../db/shards/shard-unreachable.ts';
import type {
  AcknowledgedMark,
  AppendRequest,
  AppendResult,
  EventLog,
  FoldOptions,
  FoldResult,
} from '../event-log.ts';
import { unfoldedCount } from '../fold-sql.ts';
import { anyMeterRow, lockedMonthUsage, monthUsage } from '../meter-lock.ts';
import { uniqueById } from '../postgres-event-log.ts';
import { mergedFolds } from '../shards/shard-folds.ts';
import { noteUsageAt, noteUsageUnlocked } from '../usage-notice.ts';
import { BatchProducer } from './batch-producer.ts';
import { claimAndMeter, claimedDigests, digestOf } from './claims-sql.ts';
import { LogConsumer, type LogRecord } from './log-consumer.ts';
import { lowestOver, shardInbox } from './shard-inbox.ts';
import { foldShardStretch } from './shard-stretch-fold.ts';
import { recordsOf, type SplitStretch, splitStretch } from './stretch-parts.ts';

/**
 * Messages one fold takes from the topic at most, and characters of their values (an envelope
 * holds a request's events: the characters keep a fold's transaction near the size 5,000
 * one-event messages made).
 */
const MESSAGES_PER_FOLD = 5_000;
const CHARS_PER_FOLD = 4 * 1024 * 1024;

/** The shards a fold stores consumed events on, each user's on the shard of its hash. */
export type KafkaShards = EventShards & Pick<ShardSet, 'positionOf'>;

/**
 * Where the Kafka path de-duplicates and meters: `acceptance` claims each id in PostgreSQL
 * before the 202; `fold` leaves both to the fold, which stores an id once and meters what it
 * stored.
 */
export type KafkaMetering = 'acceptance' | 'fold';

export interface KafkaLogSettings {
  brokers: string[];
  topic: string;
  /** `acceptance` when absent. */
  metering?: KafkaMetering;
}

/**
 * The distributed adapter: a Kafka topic is the log. An append claims the batch's new ids and
 * meters them in one PostgreSQL transaction, produces them (idempotent, acks=all; one
 * envelope per partition the request's users fall in, not a message per event) and commits
 * only after the brokers acknowledged; a failed produce rolls the claim and the meter back and
 * surfaces as EventLogUnavailable; claims and meter stay in the control database. With
 * metering at the fold, an append only produces, and the fold meters what it stores. A fold (in
 * `ARBITER_INGEST_WORKER` processes) splits a stretch of consumed envelopes by the shard of
 * each event's user and, on each shard in one transaction, stores its part in `events`, records the
 * offsets past the stretch in that shard's `ingest_inbox` and folds. The consumer resumes from
 * the lowest offsets over the shards; a shard ahead skips what its inbox passed.
 */
export class KafkaEventLog implements EventLog {
  private readonly appendListeners: Array<() => void> = [];
  private readonly producer: BatchProducer;
  private readonly consumer: LogConsumer;
  private consuming = false;
  /** The fold running in this process, if one is. */
  private folding: Promise<FoldResult> | null = null;

  constructor(
    private readonly db: Database,
    private readonly settings: KafkaLogSettings,
    /** Where the consumed events go; by default the control database is the one shard. */
    private readonly shards: KafkaShards = { all: [{ db }], positionOf: () => 0 },
  ) {
    if (settings.metering === 'fold' && shards.all.length > 1)
      throw new Error('metering at the fold needs the database to be the one shard');
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
    const result =
      this.settings.metering === 'fold'
        ? await this.produceUnclaimed(request)
        : await this.db.transaction((tx) => this.claimAndProduce(tx, request));
    if (result.appended.length > 0) for (const wake of this.appendListeners) wake();
    return result;
  }

  /**
   * Accepts without a claim: the batch's repeats dropped, an enforced allowance cut against the
   * month's committed meter (which lags by the events not folded yet, so an org may overshoot
   * by those), the rest produced marked for the fold's meter. An id sent before is produced
   * again and stored once by the fold, which meters only what it stored: the answer counts it
   * as appended, and a reused id with other content is dropped there, the first copy standing.
   * The usage notice judges the committed meter plus this batch.
   */
  private async produceUnclaimed({
    orgId,
    events,
    month,
    allowance,
    usage,
  }: AppendRequest): Promise<AppendResult> {
    const { unique, repeats } = uniqueById(events);
    const used =
      allowance === null && usage === undefined ? 0 : await monthUsage(this.db, orgId, month);
    const taken = allowance === null ? unique : unique.slice(0, Math.max(0, allowance - used));
    if (taken.length > 0) {
      await this.producer.send(orgId, taken, true);
      await noteUsageAt(this.db, orgId, month, used + taken.length, usage);
    }
    return {
      appended: taken.map((e) => e.event_id),
      duplicates: repeats,
      conflicts: [],
      refused: unique.slice(taken.length).map((e) => e.event_id),
    };
  }

  private async claimAndProduce(
    tx: Database,
    { orgId, events, month, allowance, usage }: AppendRequest,
  ): Promise<AppendResult> {
    const { unique, repeats } = uniqueById(events);
    const used = allowance === null ? 0 : await lockedMonthUsage(tx, orgId, month);
    const meterShard = allowance === null ? anyMeterRow() : 0;
    const room = allowance === null ? null : Math.max(0, allowance - used);
    const { earlier, won } = await claimAndMeter(tx, { orgId, month, meterShard }, unique, room);
    const fresh = unique.filter((e) => !earlier.has(e.event_id));
    const taken = room === null ? fresh : fresh.slice(0, room);
    const appended = taken.filter((e) => won.has(e.event_id));
    // Not won: claimed before (read here when there is no allowance: the claim did not read
    // them first), or by a concurrent request since the statement's snapshot (a retry racing
    // its first copy).
    const raced = taken.filter((e) => !won.has(e.event_id));
    if (raced.length > 0) {
      const ids = raced.map((e) => e.event_id);
      for (const [id, digest] of await claimedDigests(tx, orgId, ids)) earlier.set(id, digest);
    }
    if (appended.length > 0) {
      // The claim statement metered `appended`: the usage notice reads the month after it.
      if (allowance !== null) await noteUsageAt(tx, orgId, month, used + appended.length, usage);
      else await noteUsageUnlocked(tx, orgId, month, appended.length, usage);
      await this.producer.send(orgId, appended);
    }
    const stored = unique.filter((e) => earlier.has(e.event_id));
    return {
      appended: appended.map((e) => e.event_id),
      duplicates: [...stored.map((e) => e.event_id), ...repeats],
      conflicts: stored
        .filter((e) => earlier.get(e.event_id) !== digestOf(e))
        .map((e) => e.event_id),
      refused: fresh.slice(taken.length).map((e) => e.event_id),
    };
  }

  /**
   * One fold at a time in a process (the worker's loop and a run's fold gate both fold): a
   * fold takes its stretch before the shard's lock, so a later stretch committed first would
   * move the inbox past an earlier one, whose messages the inbox filter would then skip as
   * stored. A fold asked for only if free answers busy while another runs; any other waits.
   */
  async fold(maxTransactions: number, options: FoldOptions = {}): Promise<FoldResult> {
    while (this.folding !== null) {
      if (options.ifFree === true) return { events: 0, quarantined: [], busy: true };
      await this.folding.catch(() => undefined);
    }
    const run = this.foldStretch(maxTransactions, options);
    this.folding = run;
    try {
      return await run;
    } finally {
      this.folding = null;
    }
  }

  /**
   * The next stretch, split by shard and each part folded on its shard at once. The parts of
   * shards that did not fold it (down, or busy with another process's fold) go back to the
   * consumer and come first in the next stretch; the other shards' parts are committed and
   * stay so.
   */
  private async foldStretch(maxTransactions: number, options: FoldOptions): Promise<FoldResult> {
    const records = this.consuming ? await this.nextStretch() : [];
    const stretch = this.split(records);
    const topic = this.settings.topic;
    const settled = await Promise.allSettled(
      this.shards.all.map(({ db }, position) =>
        foldShardStretch(
          db,
          { topic, part: stretch.parts[position] ?? [], next: stretch.next },
          maxTransactions,
          options,
        ),
      ),
    );
    const undone = new Set(
      settled.flatMap((s, position) =>
        s.status === 'rejected' || s.value.busy === true ? [position] : [],
      ),
    );
    // Nothing of their parts committed: folded by the next try, not lost with this one.
    if (undone.size > 0) this.consumer.giveBack(recordsOf(records, stretch, undone));
    const folded = mergedFolds(settled);
    // A full stretch from the consumer, or one cut by its characters with read messages left
    // behind it (none given back): more is waiting, fold again at once.
    const more =
      records.length >= MESSAGES_PER_FOLD || (undone.size === 0 && this.consumer.waiting > 0);
    return more ? { ...folded, more: true } : folded;
  }

  /** A stretch that cannot be split (a message that is no event) is given back, never dropped. */
  private split(records: LogRecord[]): SplitStretch {
    try {
      return splitStretch(records, this.shards.all.length, (org, user) =>
        this.shards.positionOf(org, user),
      );
    } catch (error) {
      this.consumer.giveBack(records);
      throw error;
    }
  }

  private async nextStretch(): Promise<LogRecord[]> {
    if (!this.consumer.started) await this.consumer.start(await this.inboxPassed());
    return this.consumer.take(MESSAGES_PER_FOLD, CHARS_PER_FOLD);
  }

  /**
   * Messages on the topic not stored on every shard yet (its end offsets less the lowest inbox
   * offsets; a partition with no inbox row counts from offset 0, an over-estimate once Kafka's
   * retention has deleted its start), plus events stored and not folded yet. A message is an
   * envelope of one request's events: the offsets say how many envelopes wait, not how many
   * events, and reading them to count would cost the fold's read again.
   */
  async depth(): Promise<number> {
    const ends = await this.consumer.endOffsets();
    const passed = await this.inboxPassed();
    let lag = 0n;
    for (const [partition, end] of ends.entries()) {
      const behind = end - (passed.get(partition) ?? 0n);
      if (behind > 0n) lag += behind;
    }
    const pending = await onEveryShard(this.shards, (db) => rows<{ n: number }>(db, unfoldedCount));
    return Number(lag) + pending.reduce((n, [p]) => n + Number(p?.n ?? 0), 0);
  }

  /**
   * The topic's end offsets now: stored once every shard's inbox has passed them on every
   * partition that holds messages (an empty one, its start at its end, has nothing to consume).
   * A shard folds its part and records the stretch's offsets in one transaction, so passed
   * means stored. While a shard does not answer, its part is not stored: not all stored.
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
        try {
          const passed = await this.inboxPassed();
          return waiting.every(({ partition, end }) => (passed.get(partition) ?? 0n) >= end);
        } catch (error) {
          if (isShardUnreachable(error)) return false;
          throw error;
        }
      },
    };
  }

  /** The next offset to read per partition: the lowest any shard's folds recorded. */
  private async inboxPassed(): Promise<Map<number, bigint>> {
    const topic = this.settings.topic;
    return lowestOver(await onEveryShard(this.shards, (db) => shardInbox(db, topic)));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.producer.close(), this.consumer.close()]);
  }
}

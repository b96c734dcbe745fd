import {
  Consumer,
  type Message,
  type MessagesStream,
  MessagesStreamFallbackModes,
  MessagesStreamModes,
  stringDeserializers,
} from '@platformatic/kafka';

export type LogRecord = Message<string, string, string, string>;

/** Kafka's ListOffsets timestamp that asks for a partition's earliest offset. */
const EARLIEST = -2n;
/**
 * Messages, and characters of their values, read ahead of the fold at most; the stream pauses
 * above either (an envelope holds a request's events, so the characters bound the memory).
 */
const READ_AHEAD = 20_000;
const READ_AHEAD_CHARS = 8 * 1024 * 1024;
/** Bytes a fetch waits for on the broker (or for maxWaitTime): many produced batches at once. */
const FETCH_MIN_BYTES = 256 * 1024;

/**
 * The fold workers' reader of the topic, in one consumer group (the group spreads the
 * partitions over the workers). It starts at the offsets the workers recorded in PostgreSQL,
 * not at the group's committed offsets: those are only as current as the last commit to
 * Kafka, the inbox is as current as the last fold. A partition the group moves to another
 * worker may be read from an older offset there; the fold skips what the inbox has passed.
 */
export class LogConsumer {
  private consumer: Consumer<string, string, string, string>;
  private stream: MessagesStream<string, string, string, string> | null = null;
  private readonly buffered: LogRecord[] = [];
  private bufferedChars = 0;
  private failure: unknown = null;

  constructor(
    private readonly brokers: readonly string[],
    private readonly topic: string,
  ) {
    this.consumer = this.newConsumer();
  }

  private newConsumer(): Consumer<string, string, string, string> {
    return new Consumer({
      clientId: 'arbiter-fold',
      groupId: 'arbiter-fold',
      bootstrapBrokers: [...this.brokers],
      deserializers: stringDeserializers,
      // A fetch waits (up to maxWaitTime) for this much to gather on the broker rather than
      // answering each produced batch alone: the fold folds at most once a second anyway, and
      // a fetch per small batch cost the broker and the worker more than the batch itself.
      maxWaitTime: 500,
      minBytes: FETCH_MIN_BYTES,
      // A killed worker's partitions go to the others after this, not after the default 45 s.
      sessionTimeout: 10_000,
      heartbeatInterval: 3_000,
      timeout: 10_000,
      connectTimeout: 5_000,
    });
  }

  get started(): boolean {
    return this.stream !== null;
  }

  async start(offsets: ReadonlyMap<number, bigint>): Promise<void> {
    if (this.stream !== null) return;
    let stream: MessagesStream<string, string, string, string>;
    try {
      stream = await this.consumer.consume({
        topics: [this.topic],
        mode: MessagesStreamModes.MANUAL,
        fallbackMode: MessagesStreamFallbackModes.EARLIEST,
        offsets: [...offsets].map(([partition, offset]) => ({
          topic: this.topic,
          partition,
          offset,
        })),
        autocommit: false,
      });
    } catch (error) {
      // A join the group refused (a rebalance outlasting the client's retries on a loaded
      // broker) may leave the client half a member: the next fold starts from a new one.
      const old = this.consumer;
      this.consumer = this.newConsumer();
      try {
        await old.close(true);
      } catch {
        // already broken: the new client is what matters
      }
      throw error;
    }
    stream.on('data', (record: LogRecord) => {
      this.buffered.push(record);
      this.bufferedChars += record.value.length;
      if (this.full()) stream.pause();
    });
    stream.on('error', (error: unknown) => {
      this.failure = error;
    });
    this.stream = stream;
  }

  /** Messages read and not taken yet. */
  get waiting(): number {
    return this.buffered.length;
  }

  private full(): boolean {
    return this.buffered.length >= READ_AHEAD || this.bufferedChars >= READ_AHEAD_CHARS;
  }

  /**
   * The next messages read, at most `max` and, past the first, at most `maxChars` characters
   * of values (fewer, or none, when fewer have arrived).
   */
  take(max: number, maxChars: number): LogRecord[] {
    if (this.failure !== null) {
      // The stream is gone: the next fold starts a new one from the inbox's offsets.
      const failure = this.failure;
      this.failure = null;
      this.buffered.length = 0;
      this.bufferedChars = 0;
      void this.stream?.close().catch(() => {});
      this.stream = null;
      throw failure;
    }
    let count = 0;
    let chars = 0;
    for (const record of this.buffered) {
      if (count >= max || (count > 0 && chars + record.value.length > maxChars)) break;
      chars += record.value.length;
      count++;
    }
    const taken = this.buffered.splice(0, count);
    this.bufferedChars -= chars;
    if (this.stream?.isPaused() && this.buffered.length < READ_AHEAD / 2) {
      if (this.bufferedChars < READ_AHEAD_CHARS / 2) this.stream.resume();
    }
    return taken;
  }

  /** Messages taken but not folded (another fold held the lock): read first next time. */
  giveBack(records: LogRecord[]): void {
    this.buffered.unshift(...records);
    for (const record of records) this.bufferedChars += record.value.length;
  }

  /** The topic's end offsets, per partition. */
  async endOffsets(): Promise<bigint[]> {
    return (await this.consumer.listOffsets({ topics: [this.topic] })).get(this.topic) ?? [];
  }

  /** The topic's first offsets still held (retention deletes from the start), per partition. */
  async startOffsets(): Promise<bigint[]> {
    const offsets = await this.consumer.listOffsets({ topics: [this.topic], timestamp: EARLIEST });
    return offsets.get(this.topic) ?? [];
  }

  async close(): Promise<void> {
    await this.stream?.close();
    await this.consumer.close(true);
  }
}

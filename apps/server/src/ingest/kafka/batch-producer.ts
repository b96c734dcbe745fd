import { murmur2, ProduceAcks, Producer, stringSerializers } from '@platformatic/kafka';
import { EventLogUnavailable } from '../event-log-unavailable.ts';
import type { AcceptedEvent } from '../event-schema.ts';
import { ProduceQueue } from './produce-queue.ts';

/**
 * What a message on the topic carries: one request's accepted events of one partition, and
 * their org (an envelope). Messages produced before envelopes carry one `event` instead; the
 * fold reads both. `meter_at_fold` marks events accepted without a claim: the fold meters what
 * it stores of them. Without it they were claimed and metered at acceptance, so the mark goes
 * with the message, not with the fold worker's setting, and switching the setting meters
 * nothing twice.
 */
export interface LogMessage {
  org_id: string;
  events?: readonly AcceptedEvent[];
  event?: AcceptedEvent;
  meter_at_fold?: true;
}

type Message = { topic: string; partition: number; key: string; value: string };

/** Sends of one batch, each after a fresh look at the cluster (a moved leader is found). */
const SEND_ATTEMPTS = 3;
const RESEND_DELAY_MS = 500;
/** Characters of message values one send takes at most: well under the broker's 1 MiB batch. */
const MAX_SEND_BYTES = 512 * 1024;
/**
 * Characters of one envelope at most: a request's events of one partition past it go in more
 * envelopes. Even at three UTF-8 bytes a character this stays under the broker's default
 * largest message (`message.max.bytes`, 1 MiB); a lone event past it goes alone, as before.
 */
export const MAX_ENVELOPE_CHARS = 256 * 1024;

/**
 * How an API process produces: idempotent with acks=all, so an acknowledged batch is on every
 * in-sync replica and a retried send is not written twice. The Kafka client benchmark produces
 * with the same settings (bench/server/kafka-client.bench.ts).
 */
export const PRODUCER_SETTINGS = {
  serializers: stringSerializers,
  idempotent: true,
  acks: ProduceAcks.ALL,
  retries: 2,
  retryDelay: 250,
  timeout: 10_000,
  connectTimeout: 5_000,
} as const;

function newProducer(brokers: readonly string[]): Producer<string, string, string, string> {
  return new Producer({
    clientId: 'arbiter-api',
    bootstrapBrokers: [...brokers],
    ...PRODUCER_SETTINGS,
  });
}

/**
 * Produces accepted batches: idempotent, `acks=all`, one envelope per request and partition,
 * the partition chosen by org and user so one user's events keep their order in one partition. The partition is chosen here (murmur2 of the key,
 * as Kafka's Java client does), so when a send fails only the partitions it did not get
 * acknowledged are sent again: the idempotent producer recognises a retry only under its
 * first sequence number, and re-sending an acknowledged partition would append it twice.
 * Concurrent batches go through one queue (produce-queue.ts: the producer's numbering allows
 * one send in flight).
 */
export class BatchProducer {
  private producer: Producer<string, string, string, string>;
  private readonly queue = new ProduceQueue<Message>(
    (messages) => this.sendAcknowledged(messages),
    MAX_SEND_BYTES,
    (message) => message.value.length,
  );

  constructor(
    private readonly brokers: readonly string[],
    private readonly topic: string,
  ) {
    this.producer = newProducer(brokers);
  }

  /**
   * Resolves once every event is acknowledged; otherwise throws EventLogUnavailable. With
   * `meterAtFold` the envelopes ask the fold to meter what it stores of them.
   */
  async send(orgId: string, events: readonly AcceptedEvent[], meterAtFold = false): Promise<void> {
    try {
      await this.queue.send(await this.messages(orgId, events, meterAtFold));
    } catch (error) {
      throw new EventLogUnavailable(error);
    }
  }

  private async sendAcknowledged(messages: Message[]): Promise<void> {
    let left = messages;
    for (let attempt = 1; left.length > 0; attempt++) {
      try {
        await this.producer.send({ messages: left });
        return;
      } catch (error) {
        if (attempt >= SEND_ATTEMPTS) {
          this.renew();
          throw error;
        }
        const done = new Set(acknowledgedPartitions(error));
        left = left.filter((m) => !done.has(m.partition));
        this.producer.clearMetadata();
        await new Promise((resolve) => setTimeout(resolve, RESEND_DELAY_MS));
      }
    }
  }

  /**
   * A send that failed for good may have been appended by a broker whose answer was lost, and
   * the producer's numbering for that partition stays where it was: the broker would take the
   * next batch of the same size for a retry of it, acknowledge it and drop it. A new producer
   * (a new producer id) numbers afresh.
   */
  private renew(): void {
    const old = this.producer;
    this.producer = newProducer(this.brokers);
    void old.close().catch(() => {});
  }

  /**
   * The request's events grouped by partition (murmur2 of each event's `org:user` key, so one
   * user's events stay in one partition in order), each group one envelope encoded once, or
   * more where it is past `MAX_ENVELOPE_CHARS`. An envelope is keyed by its first event's key.
   */
  private async messages(
    orgId: string,
    events: readonly AcceptedEvent[],
    meterAtFold: boolean,
  ): Promise<Message[]> {
    const metadata = await this.producer.metadata({ topics: [this.topic], autocreateTopics: true });
    const partitions = metadata.topics.get(this.topic)?.partitionsCount ?? 0;
    if (partitions < 1) throw new Error(`topic ${this.topic} has no partitions`);
    const byPartition = new Map<number, AcceptedEvent[]>();
    for (const event of events) {
      const partition =
        partitions === 1
          ? 0
          : (murmur2(Buffer.from(`${orgId}:${event.user_id}`)) >>> 0) % partitions;
      const group = byPartition.get(partition);
      if (group === undefined) byPartition.set(partition, [event]);
      else group.push(event);
    }
    return [...byPartition].flatMap(([partition, group]) =>
      envelopes(orgId, group, meterAtFold).map(({ first, value }) => ({
        topic: this.topic,
        partition,
        key: `${orgId}:${first.user_id}`,
        value,
      })),
    );
  }

  async close(): Promise<void> {
    await this.producer.close();
  }
}

function acknowledgedPartitions(error: unknown): number[] {
  const produced = (error as { produced?: { offsets?: Array<{ partition: number }> } }).produced;
  return (produced?.offsets ?? []).map((o) => o.partition);
}

/** `events` (at least one) as envelopes of at most `MAX_ENVELOPE_CHARS`, halved until they fit. */
export function envelopes(
  orgId: string,
  events: readonly AcceptedEvent[],
  meterAtFold = false,
): Array<{ first: AcceptedEvent; value: string }> {
  const first = events[0] as AcceptedEvent;
  const value = JSON.stringify(envelopeOf(orgId, events, meterAtFold));
  if (value.length <= MAX_ENVELOPE_CHARS || events.length === 1) return [{ first, value }];
  const half = Math.ceil(events.length / 2);
  return [
    ...envelopes(orgId, events.slice(0, half), meterAtFold),
    ...envelopes(orgId, events.slice(half), meterAtFold),
  ];
}

/** An envelope of `events`, marked for the fold's meter when they were not metered at acceptance. */
export function envelopeOf(
  orgId: string,
  events: readonly AcceptedEvent[],
  meterAtFold: boolean,
): LogMessage {
  return meterAtFold ? { org_id: orgId, events, meter_at_fold: true } : { org_id: orgId, events };
}

import { murmur2, ProduceAcks, Producer, stringSerializers } from '@platformatic/kafka';
import { EventLogUnavailable } from '../event-log-unavailable.ts';
import type { AcceptedEvent } from '../event-schema.ts';

/** What a message on the topic carries: the event as accepted, and its org. */
export interface LogMessage {
  org_id: string;
  event: AcceptedEvent;
}

type Message = { topic: string; partition: number; key: string; value: string };

/** Sends of one batch, each after a fresh look at the cluster (a moved leader is found). */
const SEND_ATTEMPTS = 3;
const RESEND_DELAY_MS = 500;

/**
 * Produces accepted batches: idempotent, `acks=all`, keyed by org and user so one user's
 * events keep their order in one partition. The partition is chosen here (murmur2 of the key,
 * as Kafka's Java client does), so when a send fails only the partitions it did not get
 * acknowledged are sent again: the idempotent producer recognises a retry only under its
 * first sequence number, and re-sending an acknowledged partition would append it twice.
 */
export class BatchProducer {
  private readonly producer: Producer<string, string, string, string>;

  constructor(
    brokers: readonly string[],
    private readonly topic: string,
  ) {
    this.producer = new Producer({
      clientId: 'arbiter-api',
      bootstrapBrokers: [...brokers],
      serializers: stringSerializers,
      idempotent: true,
      acks: ProduceAcks.ALL,
      retries: 2,
      retryDelay: 250,
      timeout: 10_000,
      connectTimeout: 5_000,
    });
  }

  /** Resolves once every event is acknowledged; otherwise throws EventLogUnavailable. */
  async send(orgId: string, events: readonly AcceptedEvent[]): Promise<void> {
    try {
      let left = await this.messages(orgId, events);
      for (let attempt = 1; left.length > 0; attempt++) {
        try {
          await this.producer.send({ messages: left });
          return;
        } catch (error) {
          if (attempt >= SEND_ATTEMPTS) throw error;
          const done = new Set(acknowledgedPartitions(error));
          left = left.filter((m) => !done.has(m.partition));
          this.producer.clearMetadata();
          await new Promise((resolve) => setTimeout(resolve, RESEND_DELAY_MS));
        }
      }
    } catch (error) {
      throw new EventLogUnavailable(error);
    }
  }

  private async messages(orgId: string, events: readonly AcceptedEvent[]): Promise<Message[]> {
    const metadata = await this.producer.metadata({ topics: [this.topic], autocreateTopics: true });
    const partitions = metadata.topics.get(this.topic)?.partitionsCount ?? 0;
    if (partitions < 1) throw new Error(`topic ${this.topic} has no partitions`);
    return events.map((event) => {
      const key = `${orgId}:${event.user_id}`;
      const value: LogMessage = { org_id: orgId, event };
      return {
        topic: this.topic,
        partition: (murmur2(Buffer.from(key)) >>> 0) % partitions,
        key,
        value: JSON.stringify(value),
      };
    });
  }

  async close(): Promise<void> {
    await this.producer.close();
  }
}

function acknowledgedPartitions(error: unknown): number[] {
  const produced = (error as { produced?: { offsets?: Array<{ partition: number }> } }).produced;
  return (produced?.offsets ?? []).map((o) => o.partition);
}

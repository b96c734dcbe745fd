import { randomBytes } from 'node:crypto';
import {
  Consumer,
  MessagesStreamModes,
  murmur2,
  ProduceAcks,
  Producer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';

/** A message as a test reads it back from the topic. */
export interface TopicMessage {
  key: string;
  value: string;
}

/**
 * The topic's first `expected` messages, read from its start by a group of their own. The
 * group's first join on a new cluster waits for the broker to create its offsets topic, which a
 * loaded machine can stretch past the client's own three retries: the read is then tried again
 * from the start.
 */
export async function readTopic(
  brokers: string,
  topic: string,
  expected: number,
): Promise<TopicMessage[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readTopicOnce(brokers, topic, expected);
    } catch (error) {
      if (attempt === 5) throw error;
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
}

async function readTopicOnce(brokers: string, topic: string, expected: number) {
  const reader = new Consumer({
    clientId: 'arbiter-test',
    groupId: `arbiter-test-${randomBytes(4).toString('hex')}`,
    bootstrapBrokers: brokers.split(','),
    deserializers: stringDeserializers,
  });
  const messages: TopicMessage[] = [];
  try {
    const stream = await reader.consume({
      topics: [topic],
      mode: MessagesStreamModes.EARLIEST,
      autocommit: false,
      maxWaitTime: 200,
    });
    for await (const message of stream) {
      messages.push({ key: message.key, value: message.value });
      if (messages.length >= expected) break;
    }
    await stream.close();
  } finally {
    await reader.close(true);
  }
  return messages;
}

/** The topic's messages in all: its partitions' end offsets, summed. */
export async function endOffsets(brokers: string, topic: string): Promise<bigint> {
  const reader = new Consumer({
    clientId: 'arbiter-test',
    groupId: 'arbiter-test-offsets',
    bootstrapBrokers: brokers.split(','),
  });
  try {
    const ends = (await reader.listOffsets({ topics: [topic] })).get(topic) ?? [];
    return ends.reduce((sum, end) => sum + end, 0n);
  } finally {
    await reader.close(true);
  }
}

/**
 * Produces `message` once more, as a client's retry does after its first copy was acknowledged
 * and the claim's commit was lost: the topic then holds it twice.
 */
export async function produceAgain(
  brokers: string,
  topic: string,
  message: TopicMessage,
): Promise<void> {
  const producer = new Producer({
    clientId: 'arbiter-test',
    bootstrapBrokers: brokers.split(','),
    serializers: stringSerializers,
    idempotent: true,
    acks: ProduceAcks.ALL,
  });
  try {
    await producer.send({ messages: [{ topic, key: message.key, value: message.value }] });
  } finally {
    await producer.close();
  }
}

/**
 * The messages the API produces for one accepted request: an envelope per partition its users
 * fall in (by murmur2 of `org:user`, as Kafka's Java client places keys), for requests well
 * under an envelope's size bound.
 */
export function envelopeCount(
  orgId: string,
  events: ReadonlyArray<{ user_id: string }>,
  partitions: number,
): number {
  const of = (user: string) => (murmur2(Buffer.from(`${orgId}:${user}`)) >>> 0) % partitions;
  return new Set(events.map((e) => of(e.user_id))).size;
}

/** The events of a message read back from the topic (an envelope of one request's events). */
export function eventsIn(message: TopicMessage): Array<{ event_id: string; user_id: string }> {
  return JSON.parse(message.value).events;
}

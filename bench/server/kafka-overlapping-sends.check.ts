/**
 * Overlapping sends on one idempotent `@platformatic/kafka` producer (the Kafka client
 * benchmark found it): two sends of 10 messages to one partition at once, 20 times, then the messages
 * acknowledged against what the partition holds. On 1.35 the two carry the same sequence
 * numbers; the broker takes the second for a retry of the first and acknowledges it without
 * appending it (a lost batch reported as written), and every later send is then refused as out
 * of order. Prints {acknowledged, refused, onTopic}: correct would be onTopic = acknowledged.
 *
 *   dir=$(mktemp -d); b=$(bash scripts/kafka-cluster.sh start 1 $dir | tail -1)
 *   npx tsx bench/server/kafka-overlapping-sends.check.ts $b; bash scripts/kafka-cluster.sh stop $dir
 */
import {
  Admin,
  Consumer,
  ProduceAcks,
  Producer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';

const brokers = (process.argv[2] ?? '').split(',');
const topic = `overlap-${Date.now()}`;
const admin = new Admin({ clientId: 'x', bootstrapBrokers: brokers });
await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 });
await admin.close();
const p = new Producer({
  clientId: 'x',
  bootstrapBrokers: brokers,
  serializers: stringSerializers,
  idempotent: true,
  acks: ProduceAcks.ALL,
  retries: 0,
});
const batch = (tag: string) =>
  Array.from({ length: 10 }, (_, i) => ({ topic, partition: 0, key: 'k', value: `${tag}-${i}` }));
await p.send({ messages: batch('warm') });
let acked = 0;
let failed = 0;
for (let r = 0; r < 20; r++) {
  const res = await Promise.allSettled([
    p.send({ messages: batch(`a${r}`) }),
    p.send({ messages: batch(`b${r}`) }),
  ]);
  for (const x of res) {
    if (x.status === 'fulfilled') acked += 10;
    else failed += 10;
  }
}
await p.close();
const c = new Consumer({
  clientId: 'x',
  groupId: `${topic}-g`,
  bootstrapBrokers: brokers,
  deserializers: stringDeserializers,
});
const ends = (await c.listOffsets({ topics: [topic] })).get(topic);
await c.close(true);
console.log(JSON.stringify({ acknowledged: acked + 10, refused: failed, onTopic: String(ends) }));

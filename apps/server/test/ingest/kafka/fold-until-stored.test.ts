import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { FoldOptions } from '../../../src/ingest/event-log.ts';
import { foldUntilStored } from '../../../src/ingest/fold-until-stored.ts';
import { KafkaEventLog } from '../../../src/ingest/kafka/kafka-event-log.ts';
import { freshDatabase } from '../../support/database.ts';

/** A loopback port nothing listens on: bound once to learn a free one, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function countingWorker() {
  const folds: FoldOptions[] = [];
  return {
    folds,
    foldOnce: async (options: FoldOptions) => {
      folds.push(options);
      return { events: 0, quarantined: [] };
    },
  };
}

describe('foldUntilStored', () => {
  it('has nothing to wait for on a log that stores what it acknowledges', async () => {
    const worker = countingWorker();
    // The database's log has no mark: its acknowledged events are stored already.
    expect(await foldUntilStored({}, worker, performance.now() + 1_000)).toBe(true);
    expect(worker.folds).toEqual([]);
  });

  it('says not stored when the Kafka log cannot say what its brokers acknowledged, and folds nothing on a guess', async () => {
    const database = await freshDatabase();
    const log = new KafkaEventLog(database.db, {
      brokers: [`127.0.0.1:${await closedPort()}`],
      topic: 'arbiter.unreachable',
    });
    const worker = countingWorker();
    try {
      expect(await foldUntilStored(log, worker, performance.now() + 200)).toBe(false);
      expect(worker.folds).toEqual([]);
    } finally {
      await log.close();
      await database.close();
    }
  });
});

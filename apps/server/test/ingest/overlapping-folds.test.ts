import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema.ts';
import { exposureOf, type TwoOrgs, twoOrgs } from '../support/ingest-probe.ts';
import { storedEvents } from '../support/stored-events.ts';

// Folds of one process overlap: the worker's loop, a run's fold gate, a second caller. On a
// log with a queue (Kafka, in the scale-out pass) each fold takes its stretch from the consumer
// before the shard's lock; were a later stretch committed before an earlier one, the inbox would
// pass the earlier stretch and its events would never be stored. More than one stretch's worth
// (5,000 messages) is sent, so overlapping folds take different stretches.

let { h, probe, acme, exp } = {} as TwoOrgs;

beforeAll(async () => {
  ({ h, probe, acme, exp } = await twoOrgs('overlap'));
});
afterAll(() => h.close());

describe('overlapping folds in one process', () => {
  it('store every accepted event exactly once', async () => {
    const sent = 12_000;
    for (let start = 0; start < sent; start += 1_000) {
      const batch = Array.from({ length: 1_000 }, (_, i) =>
        exposureOf(exp, `overlap-${start + i}`, `overlap-user-${start + i}`),
      );
      expect((await probe.send(acme.publishable, batch)).statusCode).toBe(202);
    }
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        [{}, { ifFree: true }, {}, { ifFree: true }].map((options) =>
          h.ctx.eventLog.fold(1_000, options),
        ),
      );
    }
    const stored = await storedEvents(h, eq(events.orgId, acme.orgId));
    const ids = stored.map((e) => e.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(sent);
  });
});

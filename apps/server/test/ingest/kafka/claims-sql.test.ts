import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, rows } from '../../../src/db/connect.ts';
import type { AcceptedEvent } from '../../../src/ingest/event-schema.ts';
import { claimAndMeter, digestOf } from '../../../src/ingest/kafka/claims-sql.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/**
 * The Kafka path's claim reads at most the claims of the batch's own ids, however many the org
 * has: a read of every claim of the org, filtered, costs each request more the more the org
 * has claimed (the planner chose it for `event_id in (…)` on a table without statistics).
 */
let h: Harness;
let orgId = '';
const EARLIER = 2_000;

const event = (id: string, latency = 100) =>
  ({
    event_id: id,
    type: 'model_call',
    user_id: 'u',
    timestamp: '2026-11-30T01:00:00.000Z',
    variant: null,
    latency_ms: latency,
    received_at: '2026-11-30T01:00:01.000Z',
    is_test: false,
  }) as AcceptedEvent;

beforeAll(async () => {
  h = await startHarness();
  orgId = (await h.org('claims-read')).orgId;
  await rows(
    h.ctx.db,
    sql`insert into event_claims (org_id, event_id, digest)
      select ${orgId}::uuid, 'old-' || g, ${digestOf(event('old-1'))} from generate_series(1, ${EARLIER}) g`,
  );
});
afterAll(async () => {
  await h?.close();
});

/** Claims in a transaction rolled back, with the rows it read from `event_claims`. */
async function claimReading(events: AcceptedEvent[], room: number | null) {
  let read = 0;
  let outcome: Awaited<ReturnType<typeof claimAndMeter>> | undefined;
  await h.ctx.db
    .transaction(async (tx: Database) => {
      outcome = await claimAndMeter(tx, { orgId, month: '2026-11', meterShard: 1 }, events, room);
      const [stats] = await rows<{ n: number | string }>(
        tx,
        sql`select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n
          from pg_stat_xact_user_tables where relname = 'event_claims'`,
      );
      read = Number(stats?.n ?? 0);
      throw new RollBack();
    })
    .catch((error) => {
      if (!(error instanceof RollBack)) throw error;
    });
  return { read, outcome: outcome as NonNullable<typeof outcome> };
}
class RollBack extends Error {}

describe('the claim statement', () => {
  const batch = [
    ...Array.from({ length: 50 }, (_, i) => event(`new-${i}`)),
    event('old-1'),
    event('old-2', 999),
  ];

  it('with an allowance reads the claims of its ids only, and finds the earlier ones', async () => {
    const { read, outcome } = await claimReading(batch, 1_000);
    expect(read).toBeLessThan(batch.length * 2);
    expect([...outcome.earlier.keys()].sort()).toEqual(['old-1', 'old-2']);
    expect(outcome.earlier.get('old-1')).toBe(digestOf(event('old-1')));
    expect(outcome.earlier.get('old-2')).not.toBe(digestOf(event('old-2', 999)));
    expect(outcome.won.size).toBe(50);
  });

  it('without one reads no more, and wins only the new ids', async () => {
    const { read, outcome } = await claimReading(batch, null);
    expect(read).toBeLessThan(batch.length * 2);
    expect(outcome.won.size).toBe(50);
    expect(outcome.won.has('old-1')).toBe(false);
  });
});

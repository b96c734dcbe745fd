import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import { CopyEventStore } from '../../src/ingest/copy-store.ts';
import type { AcceptedEvent } from '../../src/ingest/event-schema.ts';
import { modelCallsForUsers } from '../support/builders.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// The COPY path keeps its meter statement's text per org, month and shard
// (src/ingest/copy-store.ts): each write must raise its own row, by its own count, whatever
// the writes before it kept.

let h: Harness;
let store: CopyEventStore;
let first: { orgId: string; experimentId: string };
let second: { orgId: string; experimentId: string };

beforeAll(async () => {
  h = await startHarness();
  if (h.databaseUrl === null || h.ctx.dbPool === null) {
    throw new Error('run with ARBITER_TEST_DB=postgres');
  }
  store = new CopyEventStore(h.ctx.dbPool);
  for (const name of ['meter-first', 'meter-second']) {
    const org = await h.org(name);
    const experimentId = await h.experiment(org.admin, { name: `${name}-exp` });
    if (name === 'meter-first') first = { orgId: org.orgId, experimentId };
    else second = { orgId: org.orgId, experimentId };
  }
});

afterAll(async () => {
  await h?.close();
});

let written = 0;
function accepted(experimentId: string, count: number): AcceptedEvent[] {
  const prefix = `meter-${written++}`;
  return modelCallsForUsers(experimentId, count, {
    prefix,
    userOf: (i) => `${prefix}-user-${i}`,
  }).map((e) => ({
    ...e,
    type: 'model_call' as const,
    variant: 'control',
    received_at: e.timestamp,
    is_test: false,
  }));
}

describe('the COPY path meters each write', () => {
  it('raises the row of its own org, month and shard by its own count', async () => {
    const writes: [typeof first, string, number, number][] = [
      [first, '2026-11', 0, 3],
      [second, '2026-11', 0, 5],
      [first, '2026-12', 0, 7],
      [first, '2026-11', 1, 11],
      [first, '2026-11', 0, 13],
      [second, '2026-12', 2, 17],
    ];
    for (const [org, month, shard, count] of writes) {
      expect(await store.store(org.orgId, month, shard, accepted(org.experimentId, count))).toBe(
        true,
      );
    }
    const meters = await rows<{ org: string; month: string; shard: number; events: number }>(
      h.ctx.db,
      sql`select case when org_id = ${first.orgId}::uuid then 'first' else 'second' end as org,
          month, shard, events::int as events
        from usage_counters where org_id in (${first.orgId}::uuid, ${second.orgId}::uuid)
        order by org, month, shard`,
    );
    expect(meters).toEqual([
      { org: 'first', month: '2026-11', shard: 0, events: 16 },
      { org: 'first', month: '2026-11', shard: 1, events: 11 },
      { org: 'first', month: '2026-12', shard: 0, events: 7 },
      { org: 'second', month: '2026-11', shard: 0, events: 5 },
      { org: 'second', month: '2026-12', shard: 2, events: 17 },
    ]);
    const [stored] = await rows<{ n: number }>(
      h.ctx.db,
      sql`select count(*)::int as n from events
        where org_id in (${first.orgId}::uuid, ${second.orgId}::uuid)`,
    );
    expect(stored?.n).toBe(3 + 5 + 7 + 11 + 13 + 17);
  });
});

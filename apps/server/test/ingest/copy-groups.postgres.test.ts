import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import { usageMonth } from '../../src/domain/billing/usage-month.ts';
import { modelCallsForUsers } from '../support/builders.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// One org's concurrent first deliveries share a COPY (src/ingest/copy-groups.ts); another
// org's never wait for them. The database's own log: a PostgreSQL server's COPY, concurrent
// transactions and a lock held from a second connection.

let h: Harness;
let held: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;
let heldExperiment: string;
let otherExperiment: string;
let locker: pg.Client;

beforeAll(async () => {
  h = await startHarness();
  if (h.databaseUrl === null) throw new Error('run with ARBITER_TEST_DB=postgres');
  held = await h.org('group-held');
  other = await h.org('group-other');
  heldExperiment = await h.experiment(held.admin, { name: 'held-exp' });
  otherExperiment = await h.experiment(other.admin, { name: 'other-exp' });
  locker = new pg.Client({ connectionString: h.databaseUrl });
  await locker.connect();
});

afterAll(async () => {
  await locker?.query('rollback').catch(() => {});
  await locker?.end().catch(() => {});
  await h?.close();
});

const send = (key: string, events: object[]) =>
  h.ingest(key, { method: 'POST', url: '/v1/events', payload: { events } });

const batch = (experimentId: string, prefix: string) =>
  modelCallsForUsers(experimentId, 100, { prefix, userOf: (i) => `${prefix}-user-${i}` });

async function storedOf(orgId: string) {
  const [row] = await rows<{ events: number; writes: number; metered: number }>(
    h.ctx.db,
    sql`select (select count(*)::int from events where org_id = ${orgId}::uuid) as events,
      (select count(distinct txid)::int from events where org_id = ${orgId}::uuid) as writes,
      (select coalesce(sum(events), 0)::int from usage_counters where org_id = ${orgId}::uuid)
        as metered`,
  );
  return row;
}

describe('first deliveries written by COPY', () => {
  it("an org held at its meter writes others' events at once, then its own together", async () => {
    // Every meter row of the held org this month, then a transaction that holds them all.
    const month = usageMonth(new Date());
    await locker.query(
      `insert into usage_counters (org_id, month, shard, events)
        select $1::uuid, $2, s, 0 from generate_series(0, 15) s on conflict do nothing`,
      [held.orgId, month],
    );
    await locker.query('begin');
    await locker.query('select 1 from usage_counters where org_id = $1::uuid for update', [
      held.orgId,
    ]);
    let heldAnswered = 0;
    const heldRequests = Array.from({ length: 8 }, (_, b) =>
      send(held.secret, batch(heldExperiment, `held-${b}`)).then((res) => {
        heldAnswered++;
        return res.statusCode;
      }),
    );
    // Two writes of the held org wait on its meter rows; its other requests wait for them.
    await vi.waitFor(
      async () => {
        // Not the locker's connection: its transaction would see one snapshot of the view.
        const [waiting] = await rows<{ n: number }>(
          h.ctx.db,
          sql`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`,
        );
        expect(waiting?.n).toBe(2);
      },
      { timeout: 20_000, interval: 50 },
    );

    const res = await send(other.secret, batch(otherExperiment, 'other'));
    expect(res.statusCode).toBe(202);
    expect(heldAnswered).toBe(0);
    expect(await storedOf(other.orgId)).toEqual({ events: 100, writes: 1, metered: 100 });

    await locker.query('rollback');
    expect(await Promise.all(heldRequests)).toEqual(Array(8).fill(202));
    const stored = await storedOf(held.orgId);
    expect(stored).toMatchObject({ events: 800, metered: 800 });
    // The six that waited went in fewer writes than requests.
    expect(stored?.writes).toBeLessThan(8);
  });

  it('a group holding a retried event stores every event of the group once', async () => {
    const first = batch(heldExperiment, 'retry');
    expect((await send(held.secret, first)).statusCode).toBe(202);
    const before = await storedOf(held.orgId);
    // Sent at once: the retry and fresh batches may share a write, which COPY refuses whole.
    const answers = await Promise.all([
      send(held.secret, first),
      ...Array.from({ length: 5 }, (_, b) =>
        send(held.secret, batch(heldExperiment, `fresh-${b}`)),
      ),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(202));
    expect(answers[0]?.json()).toMatchObject({ accepted: 100, duplicates: 100 });
    const after = await storedOf(held.orgId);
    expect((after?.events ?? 0) - (before?.events ?? 0)).toBe(500);
    expect((after?.metered ?? 0) - (before?.metered ?? 0)).toBe(500);
  });
});

import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import * as schema from '../../src/db/schema.ts';
import { PostgresEventLog } from '../../src/ingest/postgres-event-log.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// Needs concurrent transactions, which only a PostgreSQL server has (PGlite is one connection):
// the test command runs files named *.postgres.test.ts in the PostgreSQL pass only.

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
let url: string;

beforeAll(async () => {
  h = await startHarness();
  if (h.databaseUrl === null) throw new Error('run with ARBITER_TEST_DB=postgres');
  url = h.databaseUrl;
  org = await h.org('fold');
  experimentId = await h.experiment(org.admin, { name: 'fold-exp' });
});
afterAll(() => h.close());

const call = (id: string, user: string) => ({
  event_id: id,
  type: 'model_call',
  experiment_id: experimentId,
  user_id: user,
  variant: 'control',
  timestamp: new Date().toISOString(),
  latency_ms: 100,
});
const send = (list: unknown[]) =>
  h.ingest(org.secret, { method: 'POST', url: '/v1/events', payload: { events: list } });

async function callsOf(user: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    h.ctx.db,
    sql`select coalesce(sum(calls), 0)::int as n from user_day_stats where user_id = ${user}`,
  );
  return Number(row?.n);
}

describe('the fold and its queue', () => {
  it('folds a later acceptance while an older transaction is still open, then the older one once it commits, each exactly once', async () => {
    const slow = new pg.Client({ connectionString: url });
    await slow.connect();
    try {
      await slow.query('begin');
      await slow.query(
        `insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at, received_at)
         values ($1, 'slow-1', 'model_call', $2, 'slow-user', 'control', now(), now())`,
        [org.orgId, experimentId],
      );
      // a later acceptance commits while the older transaction is still open: it does not wait
      expect((await send([call('fast-1', 'fast-user')])).statusCode).toBe(202);
      expect(await h.ctx.worker.foldAll()).toBe(1);
      expect(await h.ctx.eventLog.depth()).toBe(0);
      expect(await callsOf('fast-user')).toBe(1);
      expect(await callsOf('slow-user')).toBe(0);

      await slow.query('commit');
      expect(await h.ctx.eventLog.depth()).toBe(1);
      expect(await h.ctx.worker.foldAll()).toBe(1);
      expect(await h.ctx.worker.foldAll()).toBe(0);
      expect(await callsOf('slow-user')).toBe(1);
      expect(await callsOf('fast-user')).toBe(1);
    } finally {
      await slow.end();
    }
  });

  it('an open transaction that rolls back leaves nothing to fold and holds nothing back', async () => {
    const aborted = new pg.Client({ connectionString: url });
    await aborted.connect();
    try {
      await aborted.query('begin');
      await aborted.query(
        `insert into events (org_id, event_id, type, experiment_id, user_id, variant, occurred_at, received_at)
         values ($1, 'gone-1', 'model_call', $2, 'gone-user', 'control', now(), now())`,
        [org.orgId, experimentId],
      );
      expect((await send([call('after-1', 'after-user')])).statusCode).toBe(202);
      expect(await h.ctx.worker.foldAll()).toBe(1);
      await aborted.query('rollback');
      expect(await h.ctx.eventLog.depth()).toBe(0);
      expect(await h.ctx.worker.foldAll()).toBe(0);
      expect(await callsOf('gone-user')).toBe(0);
      expect(await callsOf('after-user')).toBe(1);
    } finally {
      await aborted.end();
    }
  });

  it('two workers folding side by side (two processes) fold every event exactly once', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const other = new PostgresEventLog(drizzle(pool, { schema }) as never);
    let sending = true;
    const foldLoop = async (log: PostgresEventLog) => {
      while (sending || (await log.depth()) > 0) await log.fold(3);
    };
    try {
      const workers = [foldLoop(h.ctx.eventLog as PostgresEventLog), foldLoop(other)];
      for (let b = 0; b < 40; b++) {
        const batch = Array.from({ length: 25 }, (_, i) =>
          call(`pair-${b}-${i}`, `pair-user-${i}`),
        );
        expect((await send(batch)).statusCode).toBe(202);
      }
      sending = false;
      await Promise.all(workers);
      for (const i of [0, 7, 24]) expect(await callsOf(`pair-user-${i}`)).toBe(40);
      const total = await pool.query(
        "select sum(calls)::int as n from user_day_stats where user_id like 'pair-user-%'",
      );
      expect(total.rows[0].n).toBe(1000);
    } finally {
      sending = false;
      await pool.end();
    }
  });
});

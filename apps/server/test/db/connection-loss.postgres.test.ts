import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.ts';
import { ADMIN_SHUTDOWN } from '../../src/db/pg-error-codes.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// PostgreSQL ends idle pooled connections on a restart, a failover or an administrator's
// pg_terminate_backend: the server must notice, keep running and reconnect for the next query.

let h: Harness;
let url: string;

beforeAll(async () => {
  h = await startHarness();
  if (h.databaseUrl === null) throw new Error('run with ARBITER_TEST_DB=postgres');
  url = h.databaseUrl;
});
afterAll(() => h.close());

/** Ends every other backend connected to the test database; returns how many it ended. */
async function terminateBackends(): Promise<number> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const result = await admin.query(
      `select count(*) filter (where pg_terminate_backend(pid))::int as n
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return result.rows[0].n as number;
  } finally {
    await admin.end();
  }
}

describe('a pooled connection ended by PostgreSQL', () => {
  it('is reported to the handler, and the next query opens a new connection', async () => {
    const lost: Error[] = [];
    const handle = await openDatabase({ kind: 'postgres', url }, (error) => lost.push(error));
    try {
      await handle.pool!.query('select 1');
      expect(handle.pool!.idleCount).toBeGreaterThan(0);
      expect(await terminateBackends()).toBeGreaterThan(0);
      await expect.poll(() => lost.length).toBeGreaterThan(0);
      expect((lost[0] as Error & { code?: string }).code).toBe(ADMIN_SHUTDOWN);
      const again = await handle.pool!.query('select 41 + 1 as n');
      expect(again.rows[0].n).toBe(42);
    } finally {
      await handle.close();
    }
  });

  it('leaves the server accepting and folding events', async () => {
    const org = await h.org('loss');
    const experimentId = await h.experiment(org.admin, { name: 'loss-exp' });
    const send = (id: string) =>
      h.ingest(org.secret, {
        method: 'POST',
        url: '/v1/events',
        payload: {
          events: [
            {
              event_id: id,
              type: 'exposure',
              experiment_id: experimentId,
              user_id: `user-${id}`,
              variant: 'control',
              timestamp: new Date().toISOString(),
            },
          ],
        },
      });
    expect((await send('before')).statusCode).toBe(202);
    expect(await terminateBackends()).toBeGreaterThan(0);
    expect((await send('after')).statusCode).toBe(202);
    expect(await h.ctx.worker.foldAll()).toBeGreaterThanOrEqual(1);
    const usage = await h.call(org.admin, { method: 'GET', url: '/v1/usage' });
    expect(usage.json().events.used).toBe(2);
  });
});

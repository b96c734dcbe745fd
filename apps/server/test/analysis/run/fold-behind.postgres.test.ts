import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.ts';
import { exposuresForUsers } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

// A fold that cannot move (another process's fold holds the fold's lock and does not finish):
// a run must not be computed without the accepted events. Needs a second connection holding
// the lock: runs in the PostgreSQL pass only.

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  // a short wait, so the refusal comes quickly; the assertions are about what is answered
  h = await startHarness({ ARBITER_RUN_FOLD_WAIT_MS: '300' });
  if (h.databaseUrl === null) throw new Error('run with ARBITER_TEST_DB=postgres');
  org = await h.org('behind');
});
afterAll(() => h.close());

const send = (events: object[]) =>
  h.ingest(org.secret, { method: 'POST', url: '/v1/events', payload: { events } });

const analyze = (experimentId: string) =>
  h.call(org.admin, { method: 'POST', url: `/v1/experiments/${experimentId}/analyze` });

async function runsOf(experimentId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    h.ctx.db,
    sql`select count(*)::int as n from analysis_runs where experiment_id = ${experimentId}::uuid`,
  );
  return Number(row?.n);
}

describe('a run while the fold cannot catch up', () => {
  it('answers 503 with Retry-After and stores nothing; once the fold moves, the run counts every event', async () => {
    const exp = await h.experiment(org.admin, { name: 'behind-exp', metrics: [] });
    expect((await send(exposuresForUsers(exp, 600, { prefix: 'b' }))).statusCode).toBe(202);
    const stuck = new pg.Client({ connectionString: h.databaseUrl as string });
    await stuck.connect();
    try {
      await stuck.query('begin');
      await stuck.query('select id from ingest_watermark where id = 1 for update');
      const refused = await analyze(exp);
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.json()).toMatchObject({ type: '/problems/fold-behind', status: 503 });
      expect(await runsOf(exp)).toBe(0);

      const nightly = await h.app.inject({
        method: 'POST',
        url: '/v1/admin/pipeline/run',
        headers: { 'x-arbiter-control': h.ctx.controlToken },
        payload: { day: new Date().toISOString().slice(0, 10) },
      });
      expect(nightly.statusCode).toBe(503);
      expect(Number(nightly.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(await runsOf(exp)).toBe(0);
    } finally {
      await stuck.query('rollback');
      await stuck.end();
    }
    // The fold now catches up, in its own time: on a busy machine (or through the Kafka log) that
    // can take longer than the short wait set above, and the answer is then 503 again, which a
    // caller retries after Retry-After; what matters is the run it finally gets.
    let res = await analyze(exp);
    for (let tries = 1; res.statusCode === 503 && tries < 30; tries++) {
      await new Promise((resolve) =>
        setTimeout(resolve, 1000 * Number(res.headers['retry-after'])),
      );
      res = await analyze(exp);
    }
    expect(res.statusCode).toBe(200);
    const arms = res.json().arms as Record<string, { users: number }>;
    expect(Object.values(arms).reduce((sum, a) => sum + a.users, 0)).toBe(600);
    expect(await runsOf(exp)).toBe(1);
  });
});

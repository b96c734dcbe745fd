import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/connect.ts';
import { exposuresForUsers } from '../support/builders.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// A neighbour on the same PostgreSQL server: another database whose open transaction holds a
// transaction id. Transaction ids are cluster-wide, so a fold that waited for every open
// transaction would stall for as long as the neighbour's stays open. Needs a PostgreSQL server
// (a second database, a second connection): runs in the PostgreSQL pass only.

let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let experimentId: string;
let neighbourDb: string;
let neighbour: pg.Client;

function adminUrl(database: string): string {
  const u = new URL(process.env.ARBITER_TEST_DATABASE_URL as string);
  u.pathname = `/${database}`;
  return u.toString();
}

beforeAll(async () => {
  h = await startHarness();
  if (h.databaseUrl === null) throw new Error('run with ARBITER_TEST_DB=postgres');
  org = await h.org('stall');
  experimentId = await h.experiment(org.admin, { name: 'stall-exp' });
  neighbourDb = `arbiter_neighbour_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl('postgres') });
  await admin.connect();
  await admin.query(`create database ${neighbourDb}`);
  await admin.end();
  neighbour = new pg.Client({ connectionString: adminUrl(neighbourDb) });
  await neighbour.connect();
  // The reproduction of the issue: an open transaction in another database holding an xid.
  await neighbour.query('begin');
  await neighbour.query('create temp table t(x int)');
  await neighbour.query('select txid_current()');
});

afterAll(async () => {
  await neighbour?.query('rollback').catch(() => {});
  await neighbour?.end().catch(() => {});
  const admin = new pg.Client({ connectionString: adminUrl('postgres') });
  await admin.connect();
  await admin.query(`drop database if exists ${neighbourDb} with (force)`);
  await admin.end();
  await h?.close();
});

const send = (events: object[]) =>
  h.ingest(org.secret, { method: 'POST', url: '/v1/events', payload: { events } });

async function exposedUsers(prefix: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    h.ctx.db,
    sql`select count(distinct user_id)::int as n from user_day_stats
      where experiment_id = ${experimentId}::uuid and user_id like ${`${prefix}%`}`,
  );
  return Number(row?.n);
}

describe('a transaction open in another database of the server', () => {
  it('does not hold back the fold: events sent while it stays open are folded', async () => {
    const [open] = (
      await neighbour.query<{ holds: boolean }>(
        'select pg_current_xact_id_if_assigned() is not null as holds',
      )
    ).rows;
    expect(open?.holds).toBe(true);
    for (let b = 0; b < 3; b++) {
      const batch = exposuresForUsers(experimentId, 50, {
        prefix: `nb-${b}`,
        userOf: (i) => `nb-user-${b}-${i}`,
      });
      expect((await send(batch)).statusCode).toBe(202);
    }
    expect(await h.ctx.worker.foldAll()).toBe(150);
    expect(await h.ctx.eventLog.depth()).toBe(0);
    expect(await exposedUsers('nb-user-')).toBe(150);
  });

  it('a manual analysis during it is computed from every accepted event, or refused with 503 and stored nowhere', async () => {
    const exp = await h.experiment(org.admin, { name: 'stall-manual', metrics: [] });
    const events = exposuresForUsers(exp, 600, { prefix: 'mn', userOf: (i) => `mn-user-${i}` });
    expect((await send(events)).statusCode).toBe(202);
    const res = await h.call(org.admin, { method: 'POST', url: `/v1/experiments/${exp}/analyze` });
    if (res.statusCode === 503) {
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.json().type).toBe('/problems/fold-behind');
      const [stored] = await rows<{ n: number }>(
        h.ctx.db,
        sql`select count(*)::int as n from analysis_runs where experiment_id = ${exp}::uuid`,
      );
      expect(stored?.n).toBe(0);
      return;
    }
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const users = Object.values(body.arms as Record<string, { users: number }>).reduce(
      (sum, arm) => sum + arm.users,
      0,
    );
    expect(users).toBe(600);
    const kept = await h.call(org.admin, {
      method: 'GET',
      url: `/v1/experiments/${exp}/results?day=${encodeURIComponent(body.computed_for)}`,
    });
    expect(kept.statusCode).toBe(200);
    expect(kept.json().arms).toEqual(body.arms);
  });
});

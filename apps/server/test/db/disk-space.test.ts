import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledNightly } from '../../src/analysis/run/scheduler.ts';
import { openDatabase, rows } from '../../src/db/connect.ts';
import { exposuresForUsers } from '../support/builders.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type SmallFileSystem, smallFileSystem } from '../support/small-file-system.ts';

/**
 * The embedded database on a file system that fills. With less than a WAL segment (16 MiB)
 * free, PGlite spins on the process's only thread and never answers again, so the server must
 * stop writing well before: here at 48 MiB, with the disk filled to 32 MiB free.
 */
const MIB = 1024 * 1024;
const SIZE = 160 * MIB;
const THRESHOLD = 48 * MIB;
const LEFT_FREE = 32 * MIB;

let fs: SmallFileSystem;
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let owner: string;
let experimentId: string;

const post = (prefix: string) =>
  h.ingest(org.publishable, {
    method: 'POST',
    url: '/v1/events',
    payload: { events: exposuresForUsers(experimentId, 20, { prefix }) },
  });

const nightlyRunsStored = async () => {
  const [row] = await rows<{ n: number }>(
    h.ctx.db,
    sql`select count(*)::int as n from nightly_runs`,
  );
  return row?.n;
};

const health = async () => {
  const res = await h.call(owner, { method: 'GET', url: '/v1/admin/health' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  fs = smallFileSystem(SIZE);
  const database = await openDatabase({ kind: 'pglite', dataDir: fs.dir });
  h = await startHarness(
    {
      ARBITER_PLATFORM_OWNER_EMAILS: 'ops@arbiter.test',
      ARBITER_MIN_FREE_DISK_BYTES: String(THRESHOLD),
    },
    { database, freeSpace: fs.probe },
  );
  owner = await h.token({ sub: 'ops', email: 'ops@arbiter.test', org_id: 'platform-staff' });
  org = await h.org('acme');
  experimentId = await h.experiment(org.admin);
});

afterAll(async () => {
  await h?.close();
  fs?.unmount();
});

describe('the embedded database on a disk that fills', () => {
  it('reports its disk on the health view', async () => {
    const { disk } = await health();
    expect(disk).toMatchObject({ min_free_bytes: THRESHOLD, writes_accepted: true });
    expect(disk.free_bytes).toBeGreaterThan(THRESHOLD);
  });

  it('refuses writes below the threshold with a 507, serves reads, and resumes once space is back', async () => {
    expect((await post('before')).statusCode).toBe(202);

    fs.fillLeaving(LEFT_FREE);
    const low = await health();
    expect(low.disk.writes_accepted).toBe(false);
    expect(low.disk.free_bytes).toBeLessThan(THRESHOLD);

    const refused = await post('while-full');
    expect(refused.statusCode, refused.body).toBe(507);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({
      type: '/problems/insufficient-storage',
      status: 507,
      min_free_bytes: THRESHOLD,
    });
    expect(refused.json().detail).toContain('ARBITER_MIN_FREE_DISK_BYTES');
    const update = await h.call(org.admin, {
      method: 'POST',
      url: '/v1/keys',
      payload: { scope: 'secret' },
    });
    expect(update.statusCode).toBe(507);
    // Reads and assignment go on.
    const read = await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${experimentId}` });
    expect(read.statusCode).toBe(200);
    const assigned = await h.ingest(org.publishable, {
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experimentId, user_id: 'u-1' },
    });
    expect(assigned.statusCode).toBe(200);

    // The scheduled nightly run writes too: it is skipped, and says how to run it later.
    const logged: string[] = [];
    const log = { error: (_o: object, message: string) => logged.push(message) };
    expect(await runScheduledNightly(h.ctx, log)).toBeNull();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/skipped: the database's disk is below ARBITER_MIN_FREE_DISK_BYTES/);
    expect(logged[0]).toContain('arbiter pipeline run --day');
    expect(await nightlyRunsStored()).toBe(0);

    fs.release();
    expect((await health()).disk.writes_accepted).toBe(true);
    expect(await runScheduledNightly(h.ctx, log)).not.toBeNull();
    expect(logged).toHaveLength(1);
    expect(await nightlyRunsStored()).toBe(1);
    const retried = await post('while-full');
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json().accepted).toBe(20);
  });

  it('loses nothing it acknowledged: every accepted event is stored and folds', async () => {
    await h.ctx.worker.foldAll();
    const [stored] = await rows<{ before: number; retried: number }>(
      h.ctx.db,
      sql`select count(*) filter (where event_id like 'before-%')::int as before,
        count(*) filter (where event_id like 'while-full-%')::int as retried
        from events where org_id = ${org.orgId}::uuid`,
    );
    expect(stored).toEqual({ before: 20, retried: 20 });
    expect(await h.ctx.eventLog.depth()).toBe(0);
  });
});

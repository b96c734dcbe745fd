import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, rows } from '../../src/db/connect.ts';
import { exposuresForUsers } from '../support/builders.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type SmallFileSystem, smallFileSystem } from '../support/small-file-system.ts';

/**
 * The embedded database on a disk that is full before the free-space guard sees it: the
 * threshold is 0, as when the disk fills within one of the guard's readings. The writes the
 * database refuses are 507 problems (never a 500), the health view answers on the full disk,
 * and once space is freed the refused batches are taken again with nothing restarted.
 */
const MIB = 1024 * 1024;
const SIZE = 160 * MIB;
/** Batches sent on the full disk until one is refused: the first may fit in pages already there. */
const MAX_BATCHES = 40;

let fs: SmallFileSystem;
let h: Harness;
let org: Awaited<ReturnType<Harness['org']>>;
let owner: string;
let experimentId: string;

const post = (prefix: string) =>
  h.ingest(org.publishable, {
    method: 'POST',
    url: '/v1/events',
    payload: { events: exposuresForUsers(experimentId, 200, { prefix }) },
  });

const health = () => h.call(owner, { method: 'GET', url: '/v1/admin/health' });

beforeAll(async () => {
  fs = smallFileSystem(SIZE);
  const database = await openDatabase({ kind: 'pglite', dataDir: fs.dir });
  h = await startHarness(
    { ARBITER_PLATFORM_OWNER_EMAILS: 'ops@arbiter.test', ARBITER_MIN_FREE_DISK_BYTES: '0' },
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

describe('an events batch on a full disk', () => {
  it('is a 507 problem, health answers, and writes are taken again once space is freed', async () => {
    // Only a real size-limited file system runs out of space (the test runs as root to mount it).
    expect(fs.mounted).toBe(true);
    expect((await post('before')).statusCode).toBe(202);
    fs.fillUp();
    expect(fs.free()).toBe(0);

    const accepted: string[] = [];
    let refused: { prefix: string; res: Awaited<ReturnType<typeof post>> } | null = null;
    for (let i = 0; i < MAX_BATCHES && refused === null; i++) {
      const res = await post(`full-${i}`);
      expect([202, 507], res.body).toContain(res.statusCode);
      if (res.statusCode === 202) accepted.push(`full-${i}`);
      else refused = { prefix: `full-${i}`, res };
    }
    expect(refused, 'no batch met the full disk').not.toBeNull();
    const problem = refused?.res;
    expect(problem?.headers['content-type']).toContain('application/problem+json');
    expect(Number(problem?.headers['retry-after'])).toBeGreaterThan(0);
    expect(problem?.json()).toMatchObject({ type: '/problems/insufficient-storage', status: 507 });

    const onFull = await health();
    expect(onFull.statusCode, onFull.body).toBe(200);
    expect(onFull.json().database.reachable).toBe(true);

    fs.release();
    const after = await health();
    expect(after.statusCode).toBe(200);
    expect(after.json().disk.writes_accepted).toBe(true);
    const retried = await post(refused?.prefix as string);
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json().accepted).toBe(200);
    await h.ctx.worker.foldAll();
    const [stored] = await rows<{ n: number }>(
      h.ctx.db,
      sql`select count(*)::int as n from events where org_id = ${org.orgId}::uuid`,
    );
    // Every batch answered 202 is stored, the refused one once, after its retry.
    expect(stored?.n).toBe(200 * (accepted.length + 2));
  });
});

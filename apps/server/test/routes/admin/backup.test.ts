import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../../support/database.ts';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

const OWNER = 'boss@arbiter.test';

let h: Harness;
let experimentName: string;
beforeAll(async () => {
  h = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: OWNER });
  const admin = await h.token({ sub: 'adm', org_id: 'org_b', org_role: 'admin' });
  const config = experimentConfig();
  experimentName = config.name;
  expect(
    (await h.call(admin, { method: 'POST', url: '/v1/experiments', payload: config })).statusCode,
  ).toBe(201);
});
afterAll(() => h.close());

const backup = (headers: Record<string, string>) =>
  h.app.inject({ method: 'POST', url: '/v1/admin/backup', headers });

describe('POST /v1/admin/backup (the control token only)', () => {
  // One test for both databases (the suite runs on each): what each answers.
  it('answers the embedded database as a gzipped tarball PGlite loads, and 409 on a PostgreSQL server', async () => {
    const res = await backup({ 'x-arbiter-control': h.ctx.controlToken });
    if (TEST_DB === 'postgres') {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        type: '/problems/embedded-database-only',
        title: 'Only the embedded database is backed up here',
        status: 409,
        detail:
          'This server runs on a PostgreSQL server: back it up with pg_dump or a base backup (docs/operations.md#backups)',
        instance: '/v1/admin/backup',
      });
      return;
    }
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    const tar = gunzipSync(res.rawPayload);
    const restored = await PGlite.create({
      loadDataDir: new Blob([tar], { type: 'application/x-tar' }),
    });
    try {
      const { rows } = await restored.query<{ name: string }>('select name from experiments');
      expect(rows.map((r) => r.name)).toEqual([experimentName]);
    } finally {
      await restored.close();
    }
  });

  it('refuses a platform owner’s session (403): the dump is every org’s data', async () => {
    const token = await h.idp.sign({ sub: 'boss', email: OWNER, org_id: null });
    const res = await backup({ authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      type: '/problems/insufficient-role',
      title: 'Your role does not allow this',
      status: 403,
      detail:
        'A backup is taken only with the control token of the server’s data dir: run `arbiter backup` on its host',
      instance: '/v1/admin/backup',
    });
  });

  it('answers 401 without a credential and for a wrong control token', async () => {
    expect((await backup({})).statusCode).toBe(401);
    const wrong = await backup({ 'x-arbiter-control': 'guess' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().type).toBe('/problems/invalid-credential');
  });
});

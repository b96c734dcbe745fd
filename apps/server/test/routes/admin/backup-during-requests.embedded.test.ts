import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/connect.ts';
import { experimentConfig, type Harness, startHarness } from '../../support/harness.ts';

// A backup of an embedded database on disk: while its files are read, statements wait (every
// commit before the request is in it, none after), but the event loop keeps answering what needs
// no statement, such as an assign served from the org's cached configuration.

let h: Harness;
let work: string;
let keys: { admin: string; publishable: string };
let experimentId: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'arbiter-backup-live-'));
  const database = await openDatabase({ kind: 'pglite', dataDir: join(work, 'data') });
  h = await startHarness({}, { database });
  keys = await h.org('backup-live');
  const created = await h.call(keys.admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name: 'live' }),
  });
  expect(created.statusCode).toBe(201);
  experimentId = created.json().id;
  // The org's keys and configuration are now cached: an assign needs no statement.
  expect((await assign()).statusCode).toBe(200);
}, 120_000);
afterAll(async () => {
  await h?.close();
  rmSync(work, { recursive: true, force: true });
});

let user = 0;
const assign = () =>
  h.ingest(keys.publishable, {
    method: 'POST',
    url: '/v1/assign',
    payload: { experiment_id: experimentId, user_id: `u-${user++}` },
  });

describe('a backup of the embedded database on disk', () => {
  it('answers assigns while the files are read; a statement sent meanwhile waits for the copy', async () => {
    const order: string[] = [];
    const dump = h.ctx.dumpDatabase!;
    h.ctx.dumpDatabase = async () => {
      order.push('copy started');
      const copy = await dump();
      order.push('copy ended');
      return copy;
    };
    const backup = h.app
      .inject({
        method: 'POST',
        url: '/v1/admin/backup',
        headers: { 'x-arbiter-control': h.ctx.controlToken },
      })
      .then((res) => {
        order.push('backup answered');
        return res;
      });
    // Once the copy has started, and a turn of the event loop later (its checkpoint runs in one
    // go): were the copy one synchronous block, nothing here would run before it ended.
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    while (!order.includes('copy started')) await nextTurn();
    await nextTurn();
    const statement = h.call(keys.admin, { method: 'GET', url: '/v1/experiments' }).then((res) => {
      order.push('statement answered');
      return res;
    });
    while (!order.includes('copy ended')) {
      const res = await assign();
      expect(res.statusCode).toBe(200);
      if (!order.includes('copy ended')) order.push('assign answered');
    }
    const [backedUp, listed] = await Promise.all([backup, statement]);
    h.ctx.dumpDatabase = dump;

    expect(order[0]).toBe('copy started');
    expect(order[1]).toBe('assign answered');
    // The statement sent during the copy ran after it.
    expect(order.indexOf('statement answered')).toBeGreaterThan(order.indexOf('copy ended'));
    expect(listed.statusCode).toBe(200);

    expect(backedUp.statusCode).toBe(200);
    const restored = await PGlite.create({
      loadDataDir: new Blob([gunzipSync(backedUp.rawPayload)], { type: 'application/x-tar' }),
    });
    try {
      const { rows } = await restored.query<{ name: string }>('select name from experiments');
      expect(rows.map((r) => r.name)).toEqual(['live']);
    } finally {
      await restored.close();
    }
  }, 120_000);
});

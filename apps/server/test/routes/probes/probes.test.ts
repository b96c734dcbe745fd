import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, DatabaseHandle } from '../../../src/db/connect.ts';
import * as schema from '../../../src/db/schema.ts';
import { READY_CACHE_MS, READY_PROBE_TIMEOUT_MS } from '../../../src/http/readiness.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

/** A clock the test moves: the probe caches its answer for READY_CACHE_MS of this clock. */
function steppedClock() {
  let now = Date.parse('2026-11-23T12:00:00.000Z');
  return {
    clock: { now: () => new Date(now) },
    /** Moves past the probe's cache, so the next probe asks the database again. */
    passCache: () => {
      now += READY_CACHE_MS + 1;
    },
  };
}

const NO_STORE = 'no-store';

describe('the probes on a database with no migrations applied', () => {
  let h: Harness;
  let client: PGlite;
  beforeAll(async () => {
    client = await PGlite.create();
    const db = drizzle(client, { schema }) as unknown as Database;
    const database: DatabaseHandle = {
      db,
      kind: 'pglite',
      pool: null,
      dataDir: null,
      dump: null,
      close: () => client.close(),
    };
    h = await startHarness({}, { database });
  });
  afterAll(() => h.close());

  it('/healthz answers 200 without a credential or a database call', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe(NO_STORE);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers 503 naming the migrations check', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe(NO_STORE);
    const body = res.json();
    expect(body.status).toBe('not_ready');
    expect(body.failed).toEqual(['migrations']);
    expect(body.checks.database.ok).toBe(true);
    expect(body.checks.migrations).toEqual({
      ok: false,
      detail: 'no migration is applied: run `arbiter migrate`, or start the server, to apply them',
    });
  });
});

describe('the probes on a migrated database', () => {
  let h: Harness;
  const time = steppedClock();
  beforeAll(async () => {
    h = await startHarness({ ARBITER_READY_MAX_FOLD_LAG_SECONDS: '300' }, { clock: time.clock });
  });
  afterAll(() => h.close());

  it('/readyz answers 200 with every check passed', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ready',
      failed: [],
      checks: {
        database: { ok: true, detail: 'the database answered' },
        migrations: { ok: true, detail: 'every migration this server knows is applied' },
        fold: {
          ok: true,
          detail: 'the fold is 0 s behind (at most 300 s)',
          lag_seconds: 0,
          max_lag_seconds: 300,
        },
      },
    });
  });

  it('/readyz answers 503 naming the fold once its lag is over the threshold', async () => {
    // A stored transaction waiting for the fold since 301 s ago (the database's own clock).
    await h.ctx.db.execute(
      sql`insert into ingest_pending (txid, accepted_at)
          values (1, statement_timestamp() - interval '301 seconds')`,
    );
    time.passCache();
    const res = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    const body = res.json();
    expect(body.failed).toEqual(['fold']);
    expect(body.checks.fold).toEqual({
      ok: false,
      detail: 'the fold is 301 s behind (at most 300 s)',
      lag_seconds: 301,
      max_lag_seconds: 300,
    });
    expect(body.checks.database.ok).toBe(true);
    expect(body.checks.migrations.ok).toBe(true);

    await h.ctx.worker.foldAll();
    time.passCache();
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('/readyz reuses its answer within READY_CACHE_MS: probes cost one check per interval', async () => {
    time.passCache();
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await h.ctx.db.execute(
      sql`insert into ingest_pending (txid, accepted_at)
          values (2, statement_timestamp() - interval '1 hour')`,
    );
    // The clock has not moved: the cached answer stands, the database is not asked.
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    time.passCache();
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    await h.ctx.worker.foldAll();
  });

  it('/readyz answers 503 naming the database when it does not answer within the probe timeout', async () => {
    // The probe bounds its own calls, far below ARBITER_DATABASE_TIMEOUT_MS: a balancer
    // learns of a silent database within the probe timeout plus the cache, under 2 s.
    expect(READY_PROBE_TIMEOUT_MS + READY_CACHE_MS).toBeLessThan(2000);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A transaction that locks the migrations table and waits: the probe's first read waits
    // behind it (on the embedded database's one connection, every call does).
    let locked: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = h.ctx.db.transaction(async (tx) => {
      await tx.execute(sql`lock table drizzle.__drizzle_migrations in access exclusive mode`);
      locked();
      await held;
    });
    await lockTaken;
    try {
      time.passCache();
      const res = await h.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'not_ready',
        failed: ['database'],
        checks: {
          database: {
            ok: false,
            detail: `the database did not answer within ${READY_PROBE_TIMEOUT_MS} ms`,
          },
        },
      });
    } finally {
      release();
      await holding;
    }
    time.passCache();
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('/readyz answers 503 naming the shutdown at once when the process is stopping', async () => {
    time.passCache();
    h.ctx.lifecycle.stop();
    const res = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'not_ready',
      failed: ['shutdown'],
      checks: { shutdown: { ok: false, detail: 'the process is shutting down' } },
    });
    // Liveness stays: the process answers until it closes.
    expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

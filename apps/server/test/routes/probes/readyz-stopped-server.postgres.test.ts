import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/connect.ts';
import { READY_CACHE_MS, READY_PROBE_TIMEOUT_MS } from '../../../src/http/readiness.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { type StoppableCluster, startStoppableCluster } from '../../support/stoppable-cluster.ts';

// A PostgreSQL server of this test's own (the shared test server keeps running for the other
// files), stopped while the app runs: /readyz must turn 503 and name the database.

let h: Harness;
let own: StoppableCluster;
let time = Date.parse('2026-11-23T12:00:00.000Z');

beforeAll(async () => {
  own = await startStoppableCluster();
  const database = await openDatabase({ kind: 'postgres', url: own.url }, () => {});
  h = await startHarness({}, { database, clock: { now: () => new Date(time) } });
}, 120_000);

afterAll(async () => {
  await h?.close();
  own?.remove();
});

describe('/readyz when the PostgreSQL server stops', () => {
  it('answers 200, then 503 naming the database once the server is stopped', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    own.stop();
    time += READY_CACHE_MS + 1;

    const res = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    const body = res.json();
    expect(body.status).toBe('not_ready');
    expect(body.failed).toEqual(['database']);
    expect(body.checks.database.ok).toBe(false);
    expect(body.checks.database.detail).toMatch(/^the database (did not answer|failed)/);
    // Whatever the failure, the probe waits at most its own timeout: with the cache, a balancer
    // sees the 503 within 2 s of the stop.
    expect(READY_PROBE_TIMEOUT_MS + READY_CACHE_MS).toBeLessThan(2000);
    // /healthz does not depend on the database.
    expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

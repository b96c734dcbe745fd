import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, rows } from '../src/db/connect.ts';
import { experimentConfig } from './support/harness.ts';
import { devEnv, freePort, type RunningServer, runCli, startServer } from './support/process.ts';

// The process on SIGTERM: /readyz turns 503 while the listener keeps serving, then the listener
// closes, requests in flight finish, and the process exits 0. A client that retries (on 503 and
// on a refused connection, with the same event ids) loses nothing across the stop and restart.

const TOTAL = 20_000;
const BATCH = 500;
const SENDERS = 2;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ReadyObservation {
  status: number | 'refused';
  failed?: string[];
}

/** Polls /readyz until the connection is refused (the listener closed); returns what it saw. */
async function watchReadiness(base: string): Promise<ReadyObservation[]> {
  const seen: ReadyObservation[] = [];
  for (;;) {
    try {
      const res = await fetch(`${base}/readyz`);
      const body = (await res.json()) as { failed?: string[] };
      seen.push({ status: res.status, failed: body.failed });
    } catch {
      seen.push({ status: 'refused' });
      return seen;
    }
    await pause(20);
  }
}

describe('graceful shutdown', () => {
  it('loses no acknowledged event across a SIGTERM at 50 % and a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-shutdown-'));
    const port = await freePort();
    const env = {
      ...devEnv(dataDir),
      ARBITER_PORT: String(port),
      ARBITER_SHUTDOWN_DELAY_SECONDS: '1',
    };
    const base = `http://127.0.0.1:${port}`;
    let server: RunningServer = await startServer(env);
    const token = runCli(
      ['token', '--email', 'ops@example.com', '--org', 'ops-org', '--role', 'admin'],
      env,
    ).stdout;
    const session = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/experiments`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify(experimentConfig({ name: 'rolled' })),
    });
    const experimentId = ((await created.json()) as { id: string }).id;
    const keyed = await fetch(`${base}/v1/keys`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ scope: 'secret' }),
    });
    const key = ((await keyed.json()) as { key: string }).key;

    const acknowledged = new Set<string>();
    const badRefusals: string[] = [];
    let signalled: Promise<ReadyObservation[]> | null = null;
    let refusedConnections = 0;
    let shuttingDownAnswers = 0;

    const sendBatch = async (first: number) => {
      const ids = Array.from({ length: BATCH }, (_, i) => `ev-${first + i}`);
      const body = JSON.stringify({
        events: ids.map((id, i) => ({
          event_id: id,
          type: 'exposure',
          experiment_id: experimentId,
          user_id: `user-${(first + i) % 997}`,
          timestamp: new Date().toISOString(),
        })),
      });
      for (;;) {
        let res: Response;
        try {
          res = await fetch(`${base}/v1/events`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body,
          });
        } catch {
          refusedConnections++;
          await pause(50);
          continue;
        }
        if (res.status === 202) {
          const ack = (await res.json()) as { accepted: number; rejected: unknown[] };
          expect(ack).toMatchObject({ accepted: BATCH, rejected: [] });
          for (const id of ids) acknowledged.add(id);
          if (acknowledged.size >= TOTAL / 2 && signalled === null) {
            signalled = watchReadiness(base);
            server.child.kill('SIGTERM');
          }
          return;
        }
        const text = await res.text();
        const type = res.headers.get('content-type') ?? '';
        if (res.status !== 503 || !type.startsWith('application/problem+json'))
          badRefusals.push(`${res.status} ${type} ${text}`);
        else if (res.headers.get('retry-after') === null)
          badRefusals.push(`no Retry-After: ${text}`);
        else shuttingDownAnswers++;
        await pause(50);
      }
    };

    let next = 0;
    const sender = async () => {
      while (next < TOTAL) {
        const first = next;
        next += BATCH;
        // The last round waits for the listener to close, so the clients surely meet the stop:
        // on a fast machine the rest can be acknowledged within the shutdown delay.
        const closing = signalled as Promise<ReadyObservation[]> | null;
        if (first >= TOTAL - SENDERS * BATCH && closing !== null) await closing;
        await sendBatch(first);
      }
    };
    const sending = Promise.all(Array.from({ length: SENDERS }, sender));

    await expect.poll(() => signalled, { timeout: 120_000, interval: 50 }).not.toBeNull();
    const readiness = await (signalled as unknown as Promise<ReadyObservation[]>);
    expect(await server.exited).toBe(0);
    server = await startServer(env);
    await sending;

    // /readyz answered 503 naming the shutdown before the listener closed.
    const closedAt = readiness.findIndex((o) => o.status === 'refused');
    expect(closedAt).toBeGreaterThan(0);
    expect(
      readiness.slice(0, closedAt).some((o) => o.status === 503 && o.failed?.[0] === 'shutdown'),
    ).toBe(true);
    // The clients did meet the stop, and every refusal was a 503 problem with Retry-After.
    expect(refusedConnections + shuttingDownAnswers).toBeGreaterThan(0);
    expect(badRefusals).toEqual([]);

    expect(acknowledged.size).toBe(TOTAL);
    const usage = await fetch(`${base}/v1/usage`, { headers: session });
    expect(((await usage.json()) as { events: { used: number } }).events.used).toBe(TOTAL);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const database = await openDatabase({ kind: 'pglite', dataDir });
    try {
      const stored = await rows<{ event_id: string }>(
        database.db,
        sql`select event_id from events`,
      );
      expect(stored.length).toBe(TOTAL);
      const storedIds = new Set(stored.map((r) => r.event_id));
      expect([...acknowledged].filter((id) => !storedIds.has(id))).toEqual([]);
    } finally {
      await database.close();
    }
  }, 300_000);

  it('stops hard, exit 1 and one log line, when the shutdown outlasts its grace', async () => {
    const env = {
      ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-hard-stop-'))),
      // The delay alone outlasts the grace: the hard stop is certain, whatever the machine.
      ARBITER_SHUTDOWN_DELAY_SECONDS: '30',
      ARBITER_SHUTDOWN_GRACE_SECONDS: '1',
    };
    const server = await startServer(env);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('ARBITER_SHUTDOWN_GRACE_SECONDS'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: 50,
      msg: 'shutdown did not finish within ARBITER_SHUTDOWN_GRACE_SECONDS (1 s): stopping hard',
    });
  }, 60_000);
});

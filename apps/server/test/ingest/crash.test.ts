import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { experimentConfig, exposuresForUsers } from '../support/builders.ts';
import { freshDatabase, TEST_DB } from '../support/database.ts';
import { freePort, type RunningServer, runCli, startServer } from '../support/process.ts';

const BATCHES = 200;
const PER_BATCH = 100;
const KILL_AFTER_ACKED_BATCHES = 60;
const CONCURRENCY = 4;

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

describe(`crash safety on ${TEST_DB}`, () => {
  it('stores every acknowledged event exactly once across a SIGKILL, and the meter equals the stored count', async () => {
    const env: Record<string, string> = {
      ARBITER_DATA_DIR: mkdtempSync(join(tmpdir(), 'arbiter-crash-')),
      ARBITER_SESSION_JWKS_URL: '',
      ARBITER_SECRET_KEY: '',
      ARBITER_PORT: String(await freePort()),
      ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '10000000',
      ARBITER_DATABASE_URL: '',
    };
    if (TEST_DB === 'postgres') {
      const db = await freshDatabase();
      cleanups.push(() => db.close());
      env.ARBITER_DATABASE_URL = db.url as string;
    }
    let server: RunningServer = await startServer(env);
    cleanups.push(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
    });
    const token = runCli(
      ['token', '--email', 'ops@example.com', '--org', 'crash-org', '--role', 'admin'],
      env,
    ).stdout;
    const session = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const base = server.url;
    const post = async <T>(path: string, body: unknown): Promise<T> =>
      (await (
        await fetch(`${base}${path}`, {
          method: 'POST',
          headers: session,
          body: JSON.stringify(body),
        })
      ).json()) as T;
    const exp = await post<{ id: string }>('/v1/experiments', experimentConfig({ name: 'crash' }));
    const { key } = await post<{ key: string }>('/v1/keys', { scope: 'secret' });

    // A client that retries each batch, with the same event ids, until it is acknowledged.
    let acked = 0;
    let attempts = 0;
    let killed = false;
    let restart: Promise<void> | null = null;
    const sendBatch = async (b: number) => {
      const body = JSON.stringify({
        events: exposuresForUsers(exp.id, PER_BATCH, {
          prefix: `crash-${b}`,
          userOf: (i) => `user-${b}-${i}`,
        }),
      });
      for (;;) {
        attempts++;
        try {
          const res = await fetch(`${base}/v1/events`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body,
          });
          if (res.status === 202) {
            const ack = (await res.json()) as { accepted: number };
            expect(ack.accepted).toBe(PER_BATCH);
            acked++;
            if (acked === KILL_AFTER_ACKED_BATCHES && !killed) {
              killed = true;
              server.child.kill('SIGKILL');
              restart = server.exited.then(async () => {
                server = await startServer(env);
              });
            }
            return;
          }
          await res.arrayBuffer();
        } catch {
          // connection refused or reset while the server is down: retry
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BATCHES) await sendBatch(next++);
      }),
    );
    await restart;
    expect(killed).toBe(true);
    expect(acked).toBe(BATCHES);
    expect(attempts).toBeGreaterThan(BATCHES);

    // The worker folds in the background; wait for it through the public API.
    const total = async () => {
      const response = await fetch(`${base}/v1/experiments/${exp.id}/traffic`, {
        headers: session,
      });
      const traffic = (await response.json()) as {
        days: Array<{ exposures: Record<string, number> }>;
      };
      return traffic.days.reduce(
        (n, d) => n + Object.values(d.exposures).reduce((a, b) => a + b, 0),
        0,
      );
    };
    // every user here is enrolled (100% allocation), so each stored exposure is counted once in traffic
    let stored = await total();
    for (let i = 0; i < 600 && stored < BATCHES * PER_BATCH; i++) {
      await new Promise((r) => setTimeout(r, 100));
      stored = await total();
    }
    expect(stored).toBe(BATCHES * PER_BATCH);
    const usage = (await (await fetch(`${base}/v1/usage`, { headers: session })).json()) as {
      events: { used: number };
    };
    expect(usage.events.used).toBe(BATCHES * PER_BATCH);
  }, 300_000);
});

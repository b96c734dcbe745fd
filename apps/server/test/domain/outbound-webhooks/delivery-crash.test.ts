import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, TEST_DB } from '../../support/database.ts';
import { TEST_SECRET_KEY } from '../../support/harness.ts';
import { freePort, type RunningServer, runCli, startServer } from '../../support/process.ts';
import { type Received, webhookHeaders } from './receiver.ts';

/**
 * A receiver that is down while `arbiter serve` is killed with SIGKILL in the middle of its
 * attempts gets every event once the server is back: none lost, and a repeat only ever with
 * the same `webhook-id`.
 */
const EVENTS = 12;
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A receiver on `port` that takes each request and never answers: attempts hang there. */
async function hangingReceiver(port: number) {
  const sockets = new Set<Socket>();
  let seen = 0;
  const server = createServer(() => {
    seen++;
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    seen: () => seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A receiver on `port` that answers 200 and records each request. */
async function answeringReceiver(port: number) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return received;
}

const until = async (done: () => boolean | Promise<boolean>) => {
  while (!(await done())) await new Promise((r) => setTimeout(r, 200));
};

async function serverEnv(): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    ARBITER_DATA_DIR: mkdtempSync(join(tmpdir(), 'arbiter-webhook-crash-')),
    ARBITER_SESSION_JWKS_URL: '',
    ARBITER_SECRET_KEY: TEST_SECRET_KEY,
    ARBITER_WEBHOOKS_ALLOW_PRIVATE: 'true',
    ARBITER_PORT: String(await freePort()),
    ARBITER_DATABASE_URL: '',
  };
  if (TEST_DB === 'postgres') {
    const db = await freshDatabase();
    cleanups.push(() => db.close());
    env.ARBITER_DATABASE_URL = db.url as string;
  }
  return env;
}

describe(`outbound webhooks across a SIGKILL on ${TEST_DB}`, () => {
  it('loses no event: every one arrives after the restart, repeats only with the same id', async () => {
    const env = await serverEnv();
    let server: RunningServer = await startServer(env);
    cleanups.push(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
    });
    const token = runCli(
      ['token', '--email', 'ops@example.com', '--org', 'hook-crash', '--role', 'admin'],
      env,
    ).stdout;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const port = await freePort();
    const hanging = await hangingReceiver(port);
    const created = await fetch(`${server.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook` }),
    });
    expect(created.status).toBe(201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    const queued = new Set<string>();
    for (let i = 0; i < EVENTS; i++) {
      const res = await fetch(`${server.url}/v1/webhook-endpoints/${id}/test`, {
        method: 'POST',
        headers: { authorization: headers.authorization },
      });
      expect(res.status).toBe(202);
      queued.add(((await res.json()) as { id: string }).id);
    }
    // Every event's first attempt is in flight at the receiver, unanswered: kill the server now.
    await until(() => hanging.seen() >= EVENTS);
    server.child.kill('SIGKILL');
    await server.exited;
    await hanging.close();
    const received = await answeringReceiver(port);
    server = await startServer(env);
    await until(() => new Set(received.map((r) => r.headers['webhook-id'])).size >= EVENTS);
    expect(queued.size).toBe(EVENTS);
    const ids = received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids)).toEqual(queued);
    for (const r of received) {
      const event = new Webhook(secret).verify(r.body, webhookHeaders(r.headers));
      expect(event).toMatchObject({ type: 'webhook_endpoint.test', data: { endpoint_id: id } });
    }
    const listed = await fetch(`${server.url}/v1/webhook-endpoints/${id}/deliveries?limit=200`, {
      headers,
    });
    const deliveries = (await listed.json()) as Array<{ status: string; attempts: number }>;
    expect(deliveries).toHaveLength(EVENTS);
    expect(deliveries.every((d) => d.status === 'delivered' && d.attempts >= 2)).toBe(true);
  }, 300_000);
});

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import type { App } from '../../../src/http/app-types.ts';
import { businessEventsCsv } from '../../support/builders.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { rawRequest, sendRaw } from '../../support/raw-http.ts';

/**
 * A large import is checked and stored before it answers; on a busy server that outlasts the
 * idle time a silent connection is otherwise allowed. The server here allows 200 ms, far less
 * than any import of 10,000 rows takes, so the import's own socket timeout is what answers it.
 * That timeout is raised as soon as the request is routed: an upload that pauses while the key
 * is checked (or on a slow link) is not cut at the idle time either.
 */

const ROWS = 10_000;
const IDLE_MS = 200;
/** How long the paused upload below stays silent: several times the idle time. */
const PAUSE_MS = 3 * IDLE_MS;

let h: Harness;
let app: App;
let origin: string;
let secret: string;

beforeAll(async () => {
  h = await startHarness();
  const org = await h.org('slow-importer');
  await h.experiment(org.admin, { name: 'bulk' });
  secret = org.secret;
  // A second app on the harness's context, listening on a real socket with a short idle time.
  app = await buildApp(h.ctx, { logger: false, idleTimeoutMs: IDLE_MS });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app.close();
  await h.close();
});

describe('the import route and idle connections', () => {
  it('closes a connection that stays silent longer than the idle time', async () => {
    const { port } = new URL(origin);
    const socket = connect(Number(port), '127.0.0.1');
    const closed = await new Promise<boolean>((resolve) => {
      socket.on('close', () => resolve(true));
      socket.on('error', () => resolve(true));
    });
    expect(closed).toBe(true);
  });

  it('answers an import that takes longer than that, with every row accepted', async () => {
    const res = await fetch(`${origin}/v1/events/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', 'x-api-key': secret },
      body: businessEventsCsv('slow', ROWS),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ events: ROWS, errors: [] });
  });

  it('keeps an import open while its upload pauses longer than the idle time', async () => {
    const body = businessEventsCsv('paused', 100);
    const text = rawRequest(
      'POST',
      '/v1/events/import',
      ['Content-Type: text/csv', `X-API-Key: ${secret}`, `Content-Length: ${body.length}`],
      body,
    );
    // The headers and half the body, then silence, then the rest.
    const cut = text.length - (body.length >> 1);
    const answer = await sendRaw(
      Number(new URL(origin).port),
      [text.slice(0, cut), text.slice(cut)],
      PAUSE_MS,
    );
    expect(answer.status).toBe(200);
  });
});

import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/error-handler.ts';
import { EventLogUnavailable } from '../../src/ingest/event-log-unavailable.ts';
import { ModelTextUnavailable } from '../../src/ingest/offload-text.ts';

// A store behind the request that did not take its write: both answer through one step.
const app = Fastify({ logger: false });
beforeAll(async () => {
  registerErrorHandling(app);
  app.post('/log', async () => {
    throw new EventLogUnavailable(new Error('brokers down'));
  });
  app.post('/text', async () => {
    throw new ModelTextUnavailable(new Error('bucket down'));
  });
  await app.ready();
});
afterAll(() => app.close());

describe('a store that did not take the write', () => {
  it.each([
    [
      '/log',
      '/problems/event-log-unavailable',
      'the event log did not take the batch; nothing was stored, retry it',
    ],
    [
      '/text',
      '/problems/model-text-unavailable',
      'the object store did not take the model text; nothing was stored, retry it',
    ],
  ])('%s answers a 503 problem with Retry-After', async (url, type, detail) => {
    const res = await app.inject({ method: 'POST', url });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.type).toBe(type);
    expect(body.status).toBe(503);
    expect(body.detail).toMatch(/^Request \S+: /);
    expect(body.detail.slice(body.detail.indexOf(': ') + 2)).toBe(detail);
  });
});

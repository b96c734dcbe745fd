import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposureOf, type TwoOrgs, twoOrgs } from '../support/ingest-probe.ts';

// Once the listener is closing, a request that still arrives (on a kept-alive connection) is
// answered with our own 503 problem, never a bare framework error, and nothing of it is done.

// assigned in beforeAll
let { h, probe, acme, exp } = {} as TwoOrgs;

beforeAll(async () => {
  ({ h, probe, acme, exp } = await twoOrgs('closing'));
});
afterAll(() => h.close());

describe('a request that arrives while the process is closing', () => {
  it('is served while the process is only stopping (readiness already fails)', async () => {
    h.ctx.lifecycle.stop();
    const res = await probe.send(acme.secret, [exposureOf(exp, 'stopping-1', 'u1')]);
    expect(res.statusCode).toBe(202);
    expect(await probe.storedIds(['stopping-1'])).toEqual(['stopping-1']);
  });

  it('gets a 503 shutting-down problem with Retry-After, and nothing is stored', async () => {
    h.ctx.lifecycle.close();
    const res = await probe.send(acme.secret, [exposureOf(exp, 'closing-1', 'u1')]);
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers.connection).toBe('close');
    expect(res.json()).toEqual({
      type: '/problems/shutting-down',
      title: 'The server is shutting down',
      status: 503,
      detail:
        'This process is shutting down and took nothing of this request; retry it after Retry-After seconds (a load balancer sends it to another process).',
      instance: expect.any(String),
    });
    expect(await probe.storedIds(['closing-1'])).toEqual([]);
  });

  it('is answered the same on every route, the probes included', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().type).toBe('/problems/shutting-down');
  });
});

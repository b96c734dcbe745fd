import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { type Harness, startHarness } from '../../support/harness.ts';

describe('the development sign-in route', () => {
  let dev: Harness;
  let production: Harness;
  // One app per hook: each hook's guard then covers one start, which takes tens of seconds at
  // the load of a full test run on two cores.
  beforeAll(async () => {
    // No JWKS: development mode, the server signs its own sessions.
    dev = await startHarness({ ARBITER_SESSION_JWKS_URL: '' });
  });
  beforeAll(async () => {
    production = await startHarness();
  });
  afterAll(async () => {
    await dev.close();
    await production.close();
  });

  const session = (h: Harness, payload: object) =>
    h.app.inject({ method: 'POST', url: '/v1/dev/session', payload });

  it('mints a token of the same org as `arbiter token --org`, with the role asked for', async () => {
    const res = await session(dev, { email: 'ada@example.com', org: 'acme', role: 'member' });
    expect(res.statusCode).toBe(200);
    const me = await dev.call(res.json().token, { method: 'GET', url: '/v1/whoami' });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ role: 'member', email: 'ada@example.com' });
    const again = await session(dev, { email: 'bob@example.com', org: 'acme', role: 'admin' });
    const other = await dev.call(again.json().token, { method: 'GET', url: '/v1/whoami' });
    expect(other.json().org_id).toBe(me.json().org_id);
  });

  it('refuses a bad body with a validation problem', async () => {
    const res = await session(dev, { email: 'not-an-email', org: '', role: 'root' });
    expect(res.statusCode).toBe(400);
    expect(res.json().type).toBe('/problems/validation-error');
  });

  it('does not exist when an identity provider is configured', async () => {
    const res = await session(production, { email: 'a@example.com', org: 'acme', role: 'admin' });
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('/problems/not-found');
    const doc = (await production.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.paths['/v1/dev/session']).toBeUndefined();
  });
});

describe('the dashboard served at /', () => {
  let h: Harness;
  const dist = mkdtempSync(join(tmpdir(), 'arbiter-dist-'));
  beforeAll(async () => {
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Arbiter</title>');
    writeFileSync(join(dist, 'assets', 'app-1234.js'), 'console.log(1)');
    h = await startHarness();
    // A second app on the same context, serving this dashboard build.
    await h.app.close();
    h.app = await buildApp(h.ctx, { logger: false, dashboardDist: dist });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('answers index.html for a deep link, assets with a long cache', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/experiments/abc/results?run=x' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Arbiter</title>');
    const asset = await h.app.inject({ method: 'GET', url: '/assets/app-1234.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
  });

  it('keeps unknown API paths as 404 problems', async () => {
    for (const url of ['/v1/nope', '/problems/nope-nope', '/docs/nope/nope']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
    const v1 = await h.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(v1.json().type).toBe('/problems/not-found');
  });
});

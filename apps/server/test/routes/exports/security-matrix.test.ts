import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import {
  ADMIN_SESSION_OR_KEY_PATHS,
  documentedOperations,
  expectSuccess,
  itRefusesAllButSessionOrSecretKey,
} from '../../support/security-matrix.ts';

/**
 * Every route of the exports plane (an admin's or owner's session, or the org's secret key)
 * against every way a caller can be refused. A route the OpenAPI document lists under both
 * schemes, not in the datasets matrix and missing here, fails the completeness test.
 */
let h: Harness;
let a: Awaited<ReturnType<Harness['org']>>;
let b: Awaited<ReturnType<Harness['org']>>;
let rotated: string;
let experimentA: string;

interface ExportRouteCase {
  method: 'GET';
  path: string;
  url: () => string;
  /** The problem another org gets for an id of org A. */
  notFound: string;
}

const ROUTES: ExportRouteCase[] = [
  {
    method: 'GET',
    path: '/v1/events/export',
    url: () => `/v1/events/export?experiment=${experimentA}&day=2026-01-01`,
    notFound: '/problems/experiment-not-found',
  },
];

beforeAll(async () => {
  h = await startHarness();
  a = await h.org('matrix_exports_a');
  b = await h.org('matrix_exports_b');
  experimentA = await h.experiment(a.admin);
  rotated = a.secret;
  a.secret = (
    await h.call(a.admin, { method: 'POST', url: '/v1/keys', payload: { scope: 'secret' } })
  ).json().key;
});
afterAll(() => h.close());

function send(route: ExportRouteCase, headers: Record<string, string>) {
  return h.app.inject({ method: route.method, url: route.url(), headers });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const key = (value: string) => ({ 'x-api-key': value });
const role = (org_role: string) =>
  h.idp.sign({ sub: `export-${org_role}`, org_id: 'matrix_exports_a', org_role });

describe('security matrix of the exports plane (an admin session or the secret key)', () => {
  it('covers every operation of the plane the OpenAPI document lists under both schemes', async () => {
    const both = await documentedOperations(h, (path, op) => {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s as object));
      return (
        ADMIN_SESSION_OR_KEY_PATHS.includes(path) &&
        schemes.includes('session') &&
        schemes.includes('apiKey')
      );
    });
    expect(ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(both.sort());
    expect([...ADMIN_SESSION_OR_KEY_PATHS].sort()).toEqual(ROUTES.map((r) => r.path).sort());
  });

  describe.each(ROUTES)('$method $path', (route) => {
    itRefusesAllButSessionOrSecretKey(
      (headers) => send(route, headers),
      () => ({ h, rotated, publishable: a.publishable }),
    );

    it('answers 403 to a member', async () => {
      const res = await send(route, bearer(await role('member')));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        type: '/problems/insufficient-role',
        detail: 'This needs the admin role or higher; you are member',
      });
    });

    it('admits an admin, an owner and the secret key', async () => {
      expectSuccess(await send(route, bearer(a.admin)));
      expectSuccess(await send(route, bearer(await role('owner'))));
      expectSuccess(await send(route, key(a.secret)));
    });

    it('answers 404 to another org, by session and by key', async () => {
      for (const headers of [bearer(b.admin), key(b.secret)]) {
        const res = await send(route, headers);
        expect(res.statusCode).toBe(404);
        expect(res.json().type).toBe(route.notFound);
      }
    });
  });
});

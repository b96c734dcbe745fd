import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../support/harness.ts';
import {
  documentedOperations,
  expectAdmitted,
  type Ids,
  PLATFORM_OWNER,
  type RouteCase,
  routeKeys,
  startMatrixHarness,
} from '../../support/security-matrix.ts';

/** A route only the local control token may use refuses even a platform owner's session. */
type AdminRoute = Omit<RouteCase, 'role'> & { controlTokenOnly?: boolean };

const ADMIN_ROUTES: AdminRoute[] = [
  { method: 'GET', path: '/v1/admin/inbox', url: () => '/v1/admin/inbox' },
  { method: 'GET', path: '/v1/admin/overview', url: () => '/v1/admin/overview' },
  { method: 'GET', path: '/v1/admin/orgs', url: () => '/v1/admin/orgs' },
  { method: 'GET', path: '/v1/admin/orgs/{id}', url: () => '/v1/admin/orgs/org_a' },
  { method: 'GET', path: '/v1/admin/health', url: () => '/v1/admin/health' },
  {
    method: 'PUT',
    path: '/v1/admin/orgs/{id}/plan-override',
    url: ({ orgId }) => `/v1/admin/orgs/${orgId}/plan-override`,
    // Clearing a pin that is not there: admitted, and changes nothing for the other routes.
    payload: () => ({ plan: null }),
  },
  {
    method: 'POST',
    path: '/v1/admin/seats/resync',
    url: () => '/v1/admin/seats/resync',
    // The identity provider is not configured here; its 200 is in routes/admin/seat-resync.test.ts.
    admittedProblem: '/problems/identity-provider-not-configured',
  },
  {
    method: 'POST',
    path: '/v1/admin/pipeline/run',
    url: () => '/v1/admin/pipeline/run',
    payload: () => ({ day: '2026-11-20' }),
  },
  // Its 200 (and its 409 on a PostgreSQL server) are in routes/admin/backup.test.ts.
  {
    method: 'POST',
    path: '/v1/admin/backup',
    url: () => '/v1/admin/backup',
    controlTokenOnly: true,
  },
];

let h: Harness;
let ids: Ids;

beforeAll(async () => {
  ({ h, ids } = await startMatrixHarness());
});
afterAll(() => h.close());

describe('security matrix of the platform-owner plane', () => {
  it('covers every /v1/admin route the OpenAPI document lists', async () => {
    const documented = await documentedOperations(h, (path) => path.startsWith('/v1/admin/'));
    expect(routeKeys(ADMIN_ROUTES)).toEqual(documented.sort());
  });

  describe.each(ADMIN_ROUTES)('$method $path', (route) => {
    const send = (headers: Record<string, string>) =>
      h.app.inject({
        method: route.method,
        url: route.url(ids),
        headers,
        ...(route.payload ? { payload: route.payload(ids) as object } : {}),
      });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    it('answers 401 without a credential, and to a credential of another kind', async () => {
      const key = (
        await h.call(await h.token({ sub: 'owner-a', org_id: 'org_a', org_role: 'admin' }), {
          method: 'POST',
          url: '/v1/keys',
          payload: { scope: 'secret' },
        })
      ).json().key as string;
      const kinds: Array<Record<string, string>> = [
        {},
        { 'x-api-key': key },
        { authorization: 'Basic abc' },
      ];
      for (const headers of kinds) {
        const res = await send(headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({
          type: '/problems/missing-credential',
          title: 'Credential missing',
          status: 401,
          detail: 'Send a platform owner’s session token as Authorization: Bearer <token>',
          instance: route.url(ids),
        });
      }
    });

    it('answers 401 for a malformed, expired, foreign-issuer or foreign-key token', async () => {
      const claims = { email: PLATFORM_OWNER };
      const bad = [
        'not.a.jwt',
        await h.idp.sign(claims, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
        await h.idp.sign(claims, { issuer: 'https://evil.test' }),
        await h.idp.sign(claims, { foreignKey: true }),
      ];
      for (const token of bad) {
        const res = await send(bearer(token));
        expect(res.statusCode).toBe(401);
        expect(res.json().type).toBe('/problems/invalid-credential');
      }
    });

    it('answers 403 to anyone but a platform owner, org owners included', async () => {
      const others = [
        await h.idp.sign({
          sub: 'o',
          email: 'owner@org-a.test',
          org_id: 'org_a',
          org_role: 'owner',
        }),
        await h.idp.sign({
          sub: 'x',
          email: 'member@org-a.test',
          org_id: 'org_a',
          org_role: 'member',
        }),
        await h.idp.sign({ sub: 'y', email: `${PLATFORM_OWNER}.evil.test`, org_id: null }),
      ];
      for (const token of others) {
        const res = await send(bearer(token));
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({
          type: '/problems/insufficient-role',
          detail: 'Only platform owners may use this route',
        });
      }
    });

    it('admits a platform owner, with or without an org (a control-token route: refuses)', async () => {
      for (const org_id of ['org_a', null]) {
        const token = await h.idp.sign({ sub: 'boss', email: PLATFORM_OWNER, org_id });
        const res = await send(bearer(token));
        if (route.controlTokenOnly) {
          expect(res.statusCode).toBe(403);
          expect(res.json().type).toBe('/problems/insufficient-role');
        } else expectAdmitted({ ...route, role: 'member' }, res);
      }
    });
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentConfig, type Harness } from '../../support/harness.ts';
import {
  expectAdmitted,
  type Ids,
  MATRIX_GROUP,
  MATRIX_HOLDOUT,
  MATRIX_LAYER,
  type RouteCase,
  startMatrixHarness,
} from '../../support/security-matrix.ts';

/**
 * Every dashboard route against every way a caller can be refused. A route missing from this
 * table fails the completeness test below, so no route ships without its security tests.
 */
const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/experiments', role: 'member', url: () => '/v1/experiments' },
  {
    method: 'POST',
    path: '/v1/experiments',
    role: 'member',
    url: () => '/v1/experiments',
    payload: () => experimentConfig(),
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}`,
  },
  {
    method: 'PUT',
    path: '/v1/experiments/{id}',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}`,
    payload: () => ({ description: 'changed' }),
  },
  // A running experiment refuses start, archive and unarchive (409); stop is asked of a draft.
  ...(['start', 'archive', 'unarchive'] as const).map(
    (t): RouteCase => ({
      method: 'POST',
      path: `/v1/experiments/{id}/${t}`,
      role: 'admin',
      url: ({ experimentId }) => `/v1/experiments/${experimentId}/${t}`,
      admittedProblem: '/problems/invalid-transition',
    }),
  ),
  {
    method: 'POST',
    path: '/v1/experiments/{id}/stop',
    role: 'admin',
    url: () => `/v1/experiments/${MATRIX_DRAFT}/stop`,
    payload: () => ({ conclusion: 'rollback' }),
    admittedProblem: '/problems/invalid-transition',
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/versions',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/versions`,
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/versions/{version}',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/versions/1`,
  },
  { method: 'GET', path: '/v1/saved-groups', role: 'member', url: () => '/v1/saved-groups' },
  {
    method: 'POST',
    path: '/v1/saved-groups',
    role: 'member',
    url: () => '/v1/saved-groups',
    payload: () => ({ key: `group-${randomUUID()}`, values: ['u1'] }),
  },
  {
    method: 'GET',
    path: '/v1/saved-groups/{id}',
    role: 'member',
    url: () => `/v1/saved-groups/${MATRIX_GROUP}`,
  },
  {
    method: 'PUT',
    path: '/v1/saved-groups/{id}',
    role: 'member',
    url: () => `/v1/saved-groups/${MATRIX_GROUP}`,
    payload: () => ({ values: ['u2'] }),
  },
  { method: 'GET', path: '/v1/layers', role: 'member', url: () => '/v1/layers' },
  {
    method: 'POST',
    path: '/v1/layers',
    role: 'member',
    url: () => '/v1/layers',
    payload: () => ({ name: `layer-${randomUUID()}`, salt: 's', bucket_count: 100 }),
  },
  {
    method: 'GET',
    path: '/v1/layers/{id}',
    role: 'member',
    url: () => `/v1/layers/${MATRIX_LAYER}`,
  },
  { method: 'GET', path: '/v1/holdouts', role: 'member', url: () => '/v1/holdouts' },
  {
    method: 'POST',
    path: '/v1/holdouts',
    role: 'member',
    url: () => '/v1/holdouts',
    payload: () => ({
      name: `holdout-${randomUUID()}`,
      bucket_count: 100,
      percent: 5,
      experiments: 'all',
    }),
  },
  {
    method: 'GET',
    path: '/v1/holdouts/{id}',
    role: 'member',
    url: () => `/v1/holdouts/${MATRIX_HOLDOUT}`,
  },
  {
    method: 'PUT',
    path: '/v1/holdouts/{id}',
    role: 'member',
    url: () => `/v1/holdouts/${MATRIX_HOLDOUT}`,
    payload: () => ({ experiments: [] }),
  },
  {
    method: 'GET',
    path: '/v1/holdouts/{id}/results',
    role: 'member',
    url: () => `/v1/holdouts/${MATRIX_HOLDOUT}/results`,
    expectNotFound: true,
  },
  {
    method: 'POST',
    path: '/v1/experiments/{id}/test-event',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/test-event`,
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/live',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/live`,
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/traffic',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/traffic`,
  },
  { method: 'GET', path: '/v1/usage', role: 'member', url: () => '/v1/usage' },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/results',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/results`,
    expectNotFound: true,
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/results/export',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/results/export`,
    expectNotFound: true,
  },
  { method: 'GET', path: '/v1/results/summary', role: 'member', url: () => '/v1/results/summary' },
  {
    method: 'POST',
    path: '/v1/experiments/{id}/analyze',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/analyze`,
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/sample-size',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/sample-size?metric=latency`,
  },
  {
    method: 'PUT',
    path: '/v1/experiments/{id}/metrics/{metric}/method',
    role: 'member',
    url: ({ experimentId }) => `/v1/experiments/${experimentId}/metrics/latency/method`,
    payload: () => ({ method: 'mann_whitney' }),
  },
  { method: 'GET', path: '/v1/whoami', role: 'member', url: () => '/v1/whoami' },
  { method: 'GET', path: '/v1/feedback', role: 'member', url: () => '/v1/feedback' },
  {
    method: 'POST',
    path: '/v1/feedback',
    role: 'member',
    url: () => '/v1/feedback',
    payload: () => ({ message: 'hi' }),
  },
  { method: 'GET', path: '/v1/audit', role: 'member', url: () => '/v1/audit' },
  { method: 'GET', path: '/v1/keys', role: 'member', url: () => '/v1/keys' },
  {
    method: 'POST',
    path: '/v1/keys',
    role: 'admin',
    url: () => '/v1/keys',
    payload: () => ({ scope: 'publishable' }),
  },
  {
    method: 'GET',
    path: '/v1/keys/{scope}/reveal',
    role: 'admin',
    url: () => '/v1/keys/publishable/reveal',
  },
  { method: 'GET', path: '/v1/webhook-secrets', role: 'member', url: () => '/v1/webhook-secrets' },
  { method: 'GET', path: '/v1/billing/summary', role: 'member', url: () => '/v1/billing/summary' },
  {
    method: 'POST',
    path: '/v1/billing/checkout-session',
    role: 'admin',
    url: () => '/v1/billing/checkout-session',
    payload: () => ({ plan: 'pro' }),
    admittedProblem: '/problems/billing-not-configured',
  },
  {
    method: 'POST',
    path: '/v1/billing/portal-session',
    role: 'admin',
    url: () => '/v1/billing/portal-session',
    admittedProblem: '/problems/billing-not-configured',
  },
  { method: 'POST', path: '/v1/webhook-secrets', role: 'admin', url: () => '/v1/webhook-secrets' },
];

let h: Harness;
let ids: Ids;

/** A draft of org A: what stop is asked of, so that no admitted caller stops anything. */
const MATRIX_DRAFT = 'matrix-draft';

beforeAll(async () => {
  ({ h, ids } = await startMatrixHarness());
  const admin = await h.token({ sub: 'owner-a', org_id: 'org_a', org_role: 'admin' });
  const draft = await h.call(admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig({ name: MATRIX_DRAFT, status: 'draft' }),
  });
  expect(draft.statusCode).toBe(201);
});
afterAll(() => h.close());

function request(route: RouteCase, token: string | null, headers: Record<string, string> = {}) {
  const options: Parameters<Harness['call']>[1] = {
    method: route.method,
    url: route.url(ids),
    headers,
  };
  if (route.payload) options.payload = route.payload(ids) as object;
  return h.call(token, options);
}

describe('security matrix of the dashboard plane', () => {
  it('covers every session route the OpenAPI document lists', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    // Session routes are those that keep the document's default security (a session token).
    type Ops = Record<string, { security?: unknown }>;
    const documented = Object.entries(doc.paths as Record<string, Ops>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(
          ([, op]) =>
            op.security === undefined &&
            !path.startsWith('/v1/admin/') &&
            // The outbound webhooks, rollouts, model prices and prompts planes have their own
            // matrices (test/routes/<plane>/).
            !path.startsWith('/v1/webhook-endpoints') &&
            !path.includes('/rollout') &&
            !path.startsWith('/v1/model-prices') &&
            !path.startsWith('/v1/prompts'),
        )
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );
    const covered = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(covered.sort()).toEqual(documented.sort());
  });

  describe.each(ROUTES)('$method $path', (route) => {
    it('answers 401 without a credential', async () => {
      const res = await request(route, null);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        type: '/problems/missing-credential',
        title: 'Credential missing',
        status: 401,
        detail: 'Send your session token as Authorization: Bearer <token>',
        // The instance is the path the problem is about, without the query.
        instance: route.url(ids).split('?')[0],
      });
    });

    it('answers 401 for a malformed, expired, foreign-issuer or foreign-key token', async () => {
      const bad = [
        'not.a.jwt',
        await h.idp.sign({ org_role: 'admin' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
        await h.idp.sign({ org_role: 'admin' }, { issuer: 'https://evil.test' }),
        await h.idp.sign({ org_role: 'admin' }, { foreignKey: true }),
      ];
      const details = [];
      for (const token of bad) {
        const res = await request(route, token);
        expect(res.statusCode).toBe(401);
        expect(res.json().type).toBe('/problems/invalid-credential');
        details.push(res.json().detail);
      }
      expect(details).toEqual([
        'The session token is malformed or not valid',
        'The session token has expired',
        'The session token was issued by another issuer or lacks a required claim',
        'The session token signature does not verify',
      ]);
    });

    it('answers 401 for a non-Bearer Authorization header', async () => {
      const res = await h.call(null, {
        method: route.method,
        url: route.url(ids),
        headers: { authorization: 'Basic abc' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toBe('The Authorization header must be "Bearer <token>"');
    });

    it('answers 403 to a token without an org', async () => {
      const res = await request(route, await h.idp.sign({ org_id: null, org_role: 'admin' }));
      expect(res.statusCode).toBe(403);
      expect(res.json().type).toBe('/problems/no-active-org');
    });

    if (route.role === 'admin') {
      it('answers 403 to a member and admits admins, owners and Clerk-style org:admin', async () => {
        const member = await h.idp.sign({ sub: 'm', org_id: 'org_a', org_role: 'member' });
        const res = await request(route, member);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({
          type: '/problems/insufficient-role',
          detail: 'This needs the admin role or higher; you are member',
        });
        for (const role of ['admin', 'owner', 'org:admin']) {
          const ok = await request(
            route,
            await h.idp.sign({ sub: `r-${role}`, org_id: 'org_a', org_role: role }),
          );
          expectAdmitted(route, ok);
        }
      });
    } else {
      it('admits a member', async () => {
        const res = await request(
          route,
          await h.idp.sign({ sub: 'm2', org_id: 'org_a', org_role: 'member' }),
        );
        expectAdmitted(route, res);
      });
    }
  });
});

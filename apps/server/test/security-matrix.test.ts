import { count, eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../src/db/schema.ts';
import { signBusinessEvent } from '../src/http/business-signature.ts';
import {
  clerkEvent,
  clerkOrganization,
  deliverer,
  webhookSecret,
} from './support/clerk-webhooks.ts';
import { experimentConfig, type Harness, startHarness } from './support/harness.ts';
import { deliverBillingEvent, stripeEvent, WEBHOOK_SECRET } from './support/stripe-events.ts';

/**
 * Every dashboard route against every way a caller can be refused. A route missing from this
 * table fails the completeness test below, so no route ships without its security tests.
 */
interface Ids {
  experimentId: string;
  orgId: string;
}

interface RouteCase {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  role: 'member' | 'admin';
  payload?: (ids: Ids) => unknown;
  url: (ids: Ids) => string;
  /** Admitted callers get 404 here (results are still collecting), not 2xx. */
  expectNotFound?: boolean;
  /**
   * Admitted callers get this problem type here, not 2xx: billing is not configured in this
   * harness, which a route only says to a caller it admitted (its 2xx: billing.test.ts).
   */
  admittedProblem?: string;
}

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

/** Platform-owner routes: a platform owner's session, whatever their org role (SPEC §5 rule 5). */
const ADMIN_ROUTES: Array<Omit<RouteCase, 'role'>> = [
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
    // The identity provider is not configured here; its 200 is in seat-resync.test.ts.
    admittedProblem: '/problems/identity-provider-not-configured',
  },
  {
    method: 'POST',
    path: '/v1/admin/pipeline/run',
    url: () => '/v1/admin/pipeline/run',
    payload: () => ({ day: '2026-11-20' }),
  },
];

/** Routes without a credential: a credential sent anyway is neither needed nor refused. */
const PUBLIC_ROUTES: Array<Omit<RouteCase, 'role'>> = [
  {
    method: 'POST',
    path: '/v1/contact',
    url: () => '/v1/contact',
    payload: () => ({ name: 'Pat', email: 'pat@prospect.test', message: 'Hello', kind: 'sales' }),
  },
  { method: 'GET', path: '/v1/openapi.json', url: () => '/v1/openapi.json' },
];

const PLATFORM_OWNER = 'boss@arbiter.test';

let h: Harness;
let ids: Ids;

beforeAll(async () => {
  h = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: PLATFORM_OWNER });
  const admin = await h.token({ sub: 'owner-a', org_id: 'org_a', org_role: 'admin' });
  const created = await h.call(admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig(),
  });
  const whoami = await h.call(admin, { method: 'GET', url: '/v1/whoami' });
  ids = { experimentId: created.json().id, orgId: whoami.json().org_id };
  await h.call(admin, { method: 'POST', url: '/v1/keys', payload: { scope: 'publishable' } });
});
afterAll(() => h.close());

/** Admission shows as a 2xx, or as the collecting 404 on the results route. */
function expectAdmitted(route: RouteCase, res: { statusCode: number; json(): { type?: string } }) {
  if (route.expectNotFound) {
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('/problems/results-collecting');
    return;
  }
  if (route.admittedProblem !== undefined) {
    expect(res.statusCode).toBe(409);
    expect(res.json().type).toBe(route.admittedProblem);
    return;
  }
  expect(res.statusCode).toBeGreaterThanOrEqual(200);
  expect(res.statusCode).toBeLessThan(300);
}

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
        .filter(([, op]) => op.security === undefined && !path.startsWith('/v1/admin/'))
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
        instance: route.url(ids),
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

type Operations = Record<string, Record<string, { security?: unknown[] }>>;

async function documentedOperations(keep: (path: string, op: { security?: unknown[] }) => boolean) {
  const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  return Object.entries(doc.paths as Operations).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => keep(path, op))
      .map(([m]) => `${m.toUpperCase()} ${path}`),
  );
}

const routeKeys = (routes: Array<Omit<RouteCase, 'role'>>) =>
  routes.map((r) => `${r.method} ${r.path}`).sort();

describe('security matrix of the platform-owner plane', () => {
  it('covers every /v1/admin route the OpenAPI document lists', async () => {
    const documented = await documentedOperations((path) => path.startsWith('/v1/admin/'));
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

    it('admits a platform owner, with or without an org', async () => {
      for (const org_id of ['org_a', null]) {
        const token = await h.idp.sign({ sub: 'boss', email: PLATFORM_OWNER, org_id });
        expectAdmitted({ ...route, role: 'member' }, await send(bearer(token)));
      }
    });
  });
});

describe('security matrix of the public routes', () => {
  it('covers every /v1 route the OpenAPI document lists without a credential', async () => {
    const documented = await documentedOperations(
      (path, op) => path.startsWith('/v1/') && op.security?.length === 0,
    );
    expect(routeKeys(PUBLIC_ROUTES)).toEqual(documented.sort());
  });

  describe.each(PUBLIC_ROUTES)('$method $path', (route) => {
    it('admits a caller without a credential, and ignores one sent anyway', async () => {
      const credentials = [
        {},
        { authorization: 'Bearer not.a.jwt' },
        { 'x-api-key': 'svc_pk_guess' },
      ];
      for (const [i, headers] of credentials.entries()) {
        const res = await h.app.inject({
          method: route.method,
          url: route.url(ids),
          headers,
          remoteAddress: `192.0.2.${i + 1}`,
          ...(route.payload ? { payload: route.payload(ids) as object } : {}),
        });
        expectAdmitted({ ...route, role: 'member' }, res);
      }
    });
  });
});

describe('security matrix of the identity webhook', () => {
  const secret = webhookSecret();
  let ih: Harness;
  beforeAll(async () => {
    ih = await startHarness({
      ARBITER_CLERK_WEBHOOK_SECRET: secret,
    });
  });
  afterAll(() => ih.close());

  describe('POST /v1/webhooks/clerk (Svix signature)', () => {
    const event = () => {
      const at = Date.now();
      return clerkEvent('organization.created', clerkOrganization('org_matrix', 'M', at), at);
    };
    const unsigned = (headers: Record<string, string>) =>
      ih.app.inject({
        method: 'POST',
        url: '/v1/webhooks/clerk',
        headers: { 'content-type': 'application/json', ...headers },
        payload: event(),
      });

    it('answers 401 without a signature', async () => {
      const res = await unsigned({});
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        type: '/problems/invalid-signature',
        detail: 'Identity webhook refused: the svix-id header is missing',
      });
    });

    it('answers 401 for a signature made with another secret', async () => {
      const res = await deliverer(ih.app, secret)(event(), {
        msgId: 'msg_matrix_forged',
        secret: webhookSecret(),
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().type).toBe('/problems/invalid-signature');
    });

    it('answers 401 to a session token or an API key instead of a signature', async () => {
      const session = await ih.token({ sub: 'u', org_id: 'org_a', org_role: 'admin' });
      const credentials: Record<string, string>[] = [
        { authorization: `Bearer ${session}` },
        { 'x-api-key': 'svc_sk_x' },
      ];
      for (const headers of credentials) {
        const res = await unsigned(headers);
        expect(res.statusCode).toBe(401);
        expect(res.json().type).toBe('/problems/invalid-signature');
      }
    });

    it('admits a delivery signed with the endpoint secret', async () => {
      const res = await deliverer(ih.app, secret)(event(), { msgId: 'msg_matrix_ok' });
      expect(res.statusCode).toBe(204);
    });
  });
});

/**
 * The ingest plane: its credential is an API key in X-API-Key, and the org comes from the key.
 * `scope` is the weakest key a route admits (this plane's role). `foreign` checks what org B's
 * key gets for org A's experiment: nothing of org A's.
 */
interface KeyRouteCase {
  method: 'GET' | 'POST';
  path: string;
  scope: 'publishable' | 'secret';
  request: (experimentId: string, eventId: string) => InjectOptions;
  foreign: (res: LightMyRequestResponse) => void;
}

const event = (experimentId: string, eventId: string) => ({
  event_id: eventId,
  type: 'exposure',
  experiment_id: experimentId,
  user_id: 'matrix-user',
  timestamp: new Date().toISOString(),
});

const KEY_ROUTES: KeyRouteCase[] = [
  {
    method: 'POST',
    path: '/v1/assign',
    scope: 'publishable',
    request: (experimentId) => ({
      method: 'POST',
      url: '/v1/assign',
      payload: { experiment_id: experimentId, user_id: 'matrix-user' },
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ variant: null, reason: 'unknown_experiment' });
    },
  },
  {
    method: 'GET',
    path: '/v1/config',
    scope: 'publishable',
    request: () => ({ method: 'GET', url: '/v1/config' }),
    foreign: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json().experiments).toEqual([]);
    },
  },
  {
    method: 'POST',
    path: '/v1/events',
    scope: 'publishable',
    request: (experimentId, eventId) => ({
      method: 'POST',
      url: '/v1/events',
      payload: { events: [event(experimentId, eventId)] },
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toContain('no experiment');
    },
  },
  {
    method: 'POST',
    path: '/v1/events/import',
    scope: 'secret',
    request: (experimentId, eventId) => ({
      method: 'POST',
      url: '/v1/events/import',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: JSON.stringify(event(experimentId, eventId)),
    }),
    foreign: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ events: 0, errors: [{ line: 1 }] });
    },
  },
];

/** Operations of the OpenAPI document whose security names `scheme`. */
const documentedWith = (scheme: string) =>
  documentedOperations((_, op) =>
    (op.security ?? []).some((s) => typeof s === 'object' && s !== null && scheme in s),
  );

/** A 401 problem of `type` (and `detail`, when given). */
function expectUnauthorized(res: LightMyRequestResponse, type: string, detail?: string) {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toMatchObject(detail === undefined ? { type } : { type, detail });
}

function expectSuccess(res: LightMyRequestResponse) {
  expect(res.statusCode).toBeGreaterThanOrEqual(200);
  expect(res.statusCode).toBeLessThan(300);
}

/** Raw events stored for an experiment: a refused request must have stored none. */
async function storedEventsOf(experimentId: string): Promise<number> {
  await h.ctx.worker.drainAll();
  const [row] = await h.ctx.db
    .select({ n: count() })
    .from(events)
    .where(eq(events.experimentId, experimentId));
  return row?.n ?? 0;
}

describe('security matrix of the ingest plane (API keys)', () => {
  let a: Awaited<ReturnType<Harness['org']>>;
  let b: Awaited<ReturnType<Harness['org']>>;
  let rotated: string;
  let experimentA: string;
  let sequence = 0;
  const send = (route: KeyRouteCase, key: string | null, headers: Record<string, string> = {}) => {
    const options = route.request(experimentA, `matrix-${++sequence}`);
    return h.ingest(key, { ...options, headers: { ...options.headers, ...headers } });
  };

  beforeAll(async () => {
    a = await h.org('matrix_keys_a');
    b = await h.org('matrix_keys_b');
    experimentA = await h.experiment(a.admin);
    // A new key of a scope rotates the old one away.
    rotated = a.secret;
    const fresh = await h.call(a.admin, {
      method: 'POST',
      url: '/v1/keys',
      payload: { scope: 'secret' },
    });
    a.secret = fresh.json().key;
  });

  it('covers every API-key route the OpenAPI document lists', async () => {
    const covered = KEY_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(covered.sort()).toEqual((await documentedWith('apiKey')).sort());
  });

  describe.each(KEY_ROUTES)('$method $path', (route) => {
    it('answers 401 without a key', async () => {
      expectUnauthorized(
        await send(route, null),
        '/problems/missing-credential',
        'Send your Arbiter API key in the X-API-Key header',
      );
    });

    it('answers 401 to another plane’s credential: a session token, or a key sent as Bearer', async () => {
      for (const bearer of [a.admin, a.secret]) {
        const res = await send(route, null, { authorization: `Bearer ${bearer}` });
        expectUnauthorized(res, '/problems/missing-credential');
      }
    });

    it('answers 401 to an unknown key and to a rotated-away key', async () => {
      expectUnauthorized(
        await send(route, 'svc_sk_not-a-key-of-anyone'),
        '/problems/invalid-credential',
        'This API key is not known',
      );
      expectUnauthorized(
        await send(route, rotated),
        '/problems/invalid-credential',
        'This API key was rotated away; use the current key of its scope',
      );
    });

    it('gives another org’s key nothing of this org’s experiment', async () => {
      const before = await storedEventsOf(experimentA);
      route.foreign(await send(route, b.secret));
      expect(await storedEventsOf(experimentA)).toBe(before);
    });

    if (route.scope === 'secret') {
      it('answers 401 to the publishable key and admits the secret key', async () => {
        expectUnauthorized(
          await send(route, a.publishable),
          '/problems/invalid-credential',
          'This route needs the secret key (svc_sk_); a publishable key may not use it',
        );
        expectSuccess(await send(route, a.secret));
      });
    } else {
      it('admits the publishable and the secret key', async () => {
        for (const key of [a.publishable, a.secret]) expectSuccess(await send(route, key));
      });
    }
  });
});

/**
 * The signed plane: its credential is `Arbiter-Signature`, an HMAC of the raw body with the
 * webhook secret of the org that owns the body's experiment. It has no roles.
 */
const SIGNED_ROUTES = [{ method: 'POST', path: '/v1/business-events' }] as const;

describe('security matrix of the signed plane (business-event signatures)', () => {
  let a: Awaited<ReturnType<Harness['org']>>;
  let b: Awaited<ReturnType<Harness['org']>>;
  let experimentA: string;
  let secretA: string;
  let rotatedA: string;
  let secretB: string;
  let sequence = 0;
  const rotate = async (admin: string) =>
    (await h.call(admin, { method: 'POST', url: '/v1/webhook-secrets' })).json().secret as string;
  const now = () => Math.floor(Date.now() / 1000);
  /** One outcome for org A's experiment; `sign` gives the headers for its raw body. */
  const post = (sign: (raw: string) => Record<string, string>) => {
    const raw = JSON.stringify({
      event_id: `matrix-signed-${++sequence}`,
      experiment_id: experimentA,
      user_id: 'matrix-user',
      business_metric: 'revenue',
      value: 1,
    });
    return h.app.inject({
      method: 'POST',
      url: '/v1/business-events',
      headers: { 'content-type': 'application/json', ...sign(raw) },
      payload: raw,
    });
  };
  const signed =
    (secret: string, at = now()) =>
    (raw: string) => ({
      'arbiter-signature': signBusinessEvent(secret, raw, at),
    });
  const expectRefused = (res: LightMyRequestResponse, reason: string) =>
    expectUnauthorized(res, '/problems/invalid-signature', `Business event refused: ${reason}`);

  beforeAll(async () => {
    a = await h.org('matrix_signed_a');
    b = await h.org('matrix_signed_b');
    experimentA = await h.experiment(a.admin);
    rotatedA = await rotate(a.admin);
    secretA = await rotate(a.admin);
    secretB = await rotate(b.admin);
  });

  it('covers every signed route the OpenAPI document lists', async () => {
    const covered = SIGNED_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(covered.sort()).toEqual((await documentedWith('signature')).sort());
  });

  it('answers 401 without a signature', async () => {
    expectRefused(await post(() => ({})), 'the Arbiter-Signature header is missing');
  });

  it('answers 401 to another plane’s credential: an API key or a session token', async () => {
    const others: Array<Record<string, string>> = [
      { 'x-api-key': a.secret },
      { authorization: `Bearer ${a.admin}` },
    ];
    for (const headers of others)
      expectRefused(await post(() => headers), 'the Arbiter-Signature header is missing');
  });

  it('answers 401 to a body signed with another org’s secret or a rotated-away secret', async () => {
    expectRefused(await post(signed(secretB)), 'the signature does not match the body');
    expectRefused(await post(signed(rotatedA)), 'the signature does not match the body');
  });

  it('answers 401 to a signature older than the tolerance', async () => {
    expectUnauthorized(await post(signed(secretA, now() - 3600)), '/problems/invalid-signature');
  });

  it('stored nothing it refused, and admits the current secret of the experiment’s org', async () => {
    expect(await storedEventsOf(experimentA)).toBe(0);
    expect((await post(signed(secretA))).statusCode).toBe(202);
    expect(await storedEventsOf(experimentA)).toBe(1);
  });
});

describe('security matrix of the billing webhook', () => {
  let bh: Harness;
  beforeAll(async () => {
    bh = await startHarness({ ARBITER_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
  });
  afterAll(() => bh.close());
  // A type the webhook acknowledges and ignores: the signature alone decides the answer.
  const event = () =>
    stripeEvent('invoice.paid', { id: 'in_matrix', object: 'invoice' }, new Date());

  it('covers every route the OpenAPI document signs with the billing signature', async () => {
    expect(await documentedWith('billingSignature')).toEqual(['POST /v1/webhooks/stripe']);
  });

  it('answers 401 without a signature, and to a session token or an API key instead', async () => {
    const session = await bh.token({ sub: 'u', org_id: 'org_a', org_role: 'admin' });
    for (const headers of [
      {},
      { authorization: `Bearer ${session}` },
      { 'x-api-key': 'svc_sk_x' },
    ]) {
      const res = await bh.app.inject({
        method: 'POST',
        url: '/v1/webhooks/stripe',
        headers: { 'content-type': 'application/json', ...headers },
        payload: event(),
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().type).toBe('/problems/invalid-signature');
    }
  });

  it('answers 401 to a signature made with another secret, or too old', async () => {
    const forged = await deliverBillingEvent(bh, event(), { secret: 'whsec_someone_else' });
    expect(forged.statusCode).toBe(401);
    const stale = await deliverBillingEvent(bh, event(), {
      at: new Date(Date.now() - 3_600_000),
    });
    expect(stale.statusCode).toBe(401);
  });

  it('admits a delivery signed with the endpoint secret, under either header name', async () => {
    for (const header of ['billing-signature', 'stripe-signature'] as const)
      expect((await deliverBillingEvent(bh, event(), { header })).statusCode).toBe(204);
  });
});

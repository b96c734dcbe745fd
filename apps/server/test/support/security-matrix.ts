import { count, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { events } from '../../src/db/schema.ts';
import { experimentConfig, type Harness, startHarness } from './harness.ts';

/**
 * What every plane's security matrix shares: the shape of a route case, how admission shows,
 * and the OpenAPI document's operations, so each plane's completeness test compares its table
 * with the routes the document lists under that plane's credential.
 */
export interface Ids {
  experimentId: string;
  orgId: string;
}

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  role: 'member' | 'admin';
  payload?: (ids: Ids) => unknown;
  url: (ids: Ids) => string;
  /** Admitted callers get 404 here (results are still collecting), not 2xx. */
  expectNotFound?: boolean;
  /**
   * Admitted callers get this problem type here, not 2xx: billing is not configured in this
   * harness, which a route only says to a caller it admitted (its 2xx: domain/billing/billing.test.ts).
   */
  admittedProblem?: string;
}

/**
 * Routes that take a session or the secret key but admit a session only from an admin or owner
 * (the exports plane, test/routes/exports/); the datasets plane's matrix admits members.
 */
export const ADMIN_SESSION_OR_KEY_PATHS = ['/v1/events/export'];

export const PLATFORM_OWNER = 'boss@arbiter.test';
/** The saved group of org A that the matrix reads and changes. */
export const MATRIX_GROUP = 'matrix-group';
export const MATRIX_LAYER = 'matrix-layer';
export const MATRIX_HOLDOUT = 'matrix-holdout';

/** A harness with a platform owner, org A's admin, an experiment and a publishable key. */
export async function startMatrixHarness(): Promise<{ h: Harness; ids: Ids }> {
  const h = await startHarness({ ARBITER_PLATFORM_OWNER_EMAILS: PLATFORM_OWNER });
  const admin = await h.token({ sub: 'owner-a', org_id: 'org_a', org_role: 'admin' });
  const created = await h.call(admin, {
    method: 'POST',
    url: '/v1/experiments',
    payload: experimentConfig(),
  });
  await h.call(admin, {
    method: 'POST',
    url: '/v1/saved-groups',
    payload: { key: MATRIX_GROUP, values: ['u1'] },
  });
  await h.call(admin, {
    method: 'POST',
    url: '/v1/layers',
    payload: { name: MATRIX_LAYER, salt: 'matrix-layer', bucket_count: 100 },
  });
  await h.call(admin, {
    method: 'POST',
    url: '/v1/holdouts',
    payload: { name: MATRIX_HOLDOUT, bucket_count: 100, percent: 5, experiments: 'all' },
  });
  const whoami = await h.call(admin, { method: 'GET', url: '/v1/whoami' });
  const ids = { experimentId: created.json().id, orgId: whoami.json().org_id };
  await h.call(admin, { method: 'POST', url: '/v1/keys', payload: { scope: 'publishable' } });
  return { h, ids };
}

/** Admission shows as a 2xx, or as the collecting 404 on the results route. */
export function expectAdmitted(
  route: RouteCase,
  res: { statusCode: number; json(): { type?: string } },
) {
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

type Operations = Record<string, Record<string, { security?: unknown[] }>>;

/** The document's operations (`METHOD /path`) that `keep` selects. */
export async function documentedOperations(
  h: Harness,
  keep: (path: string, op: { security?: unknown[] }) => boolean,
) {
  const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  return Object.entries(doc.paths as Operations).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => keep(path, op))
      .map(([m]) => `${m.toUpperCase()} ${path}`),
  );
}

export const routeKeys = (routes: Array<Omit<RouteCase, 'role'>>) =>
  routes.map((r) => `${r.method} ${r.path}`).sort();

/** Operations of the OpenAPI document whose security names `scheme`. */
export const documentedWith = (h: Harness, scheme: string) =>
  documentedOperations(h, (_, op) =>
    (op.security ?? []).some((s) => typeof s === 'object' && s !== null && scheme in s),
  );

/** A 401 problem of `type` (and `detail`, when given). */
export function expectUnauthorized(res: LightMyRequestResponse, type: string, detail?: string) {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toMatchObject(detail === undefined ? { type } : { type, detail });
}

/** What a session-or-secret-key matrix lends the shared refusals: its harness and two keys. */
export interface SessionOrKeyFixture {
  h: Harness;
  /** A secret key of org A that was rotated away. */
  rotated: string;
  publishable: string;
}

/**
 * The refusals every route taking a session or the secret key owes: no credential, a malformed
 * or foreign token, an unknown or rotated-away key, the publishable key, a session without an
 * org. Each such plane's matrix (datasets, exports) runs them inside its per-route describe.
 */
export function itRefusesAllButSessionOrSecretKey(
  send: (headers: Record<string, string>) => Promise<LightMyRequestResponse>,
  fixture: () => SessionOrKeyFixture,
): void {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const key = (value: string) => ({ 'x-api-key': value });

  it('answers 401 without a credential', async () => {
    expectUnauthorized(
      await send({}),
      '/problems/missing-credential',
      'Send a session token as Authorization: Bearer <token>, or the secret key in X-API-Key',
    );
  });

  it('answers 401 to a bad session token, an unknown key and a rotated-away key', async () => {
    const { h, rotated } = fixture();
    expectUnauthorized(
      await send(bearer('not.a.jwt')),
      '/problems/invalid-credential',
      'The session token is malformed or not valid',
    );
    expectUnauthorized(
      await send(bearer(await h.idp.sign({ org_role: 'admin' }, { foreignKey: true }))),
      '/problems/invalid-credential',
      'The session token signature does not verify',
    );
    expectUnauthorized(
      await send(key('svc_sk_not-a-key-of-anyone')),
      '/problems/invalid-credential',
      'This API key is not known',
    );
    expectUnauthorized(
      await send(key(rotated)),
      '/problems/invalid-credential',
      'This API key was rotated away; use the current key of its scope',
    );
  });

  it('answers 401 to the publishable key', async () => {
    expectUnauthorized(
      await send(key(fixture().publishable)),
      '/problems/invalid-credential',
      'This route needs the secret key (svc_sk_); a publishable key may not use it',
    );
  });

  it('answers 403 to a session token without an org', async () => {
    const token = await fixture().h.idp.sign({ org_id: null, org_role: 'admin' });
    const res = await send(bearer(token));
    expect(res.statusCode).toBe(403);
    expect(res.json().type).toBe('/problems/no-active-org');
  });
}

export function expectSuccess(res: LightMyRequestResponse) {
  expect(res.statusCode).toBeGreaterThanOrEqual(200);
  expect(res.statusCode).toBeLessThan(300);
}

/** Raw events stored for an experiment: a refused request must have stored none. */
export async function storedEventsOf(h: Harness, experimentId: string): Promise<number> {
  await h.ctx.worker.foldAll();
  const [row] = await h.ctx.db
    .select({ n: count() })
    .from(events)
    .where(eq(events.experimentId, experimentId));
  return row?.n ?? 0;
}

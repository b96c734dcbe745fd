import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { documentedOperations } from '../../support/security-matrix.ts';

/**
 * Every route of the outbound webhooks plane against who may call it: no credential is a 401,
 * a member a 403 (and nothing changes), an admin and an owner are admitted, and another org's
 * endpoint is a 404.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('matrix_webhooks');
});
afterAll(() => h.close());

// Each case makes endpoints: remove them all so the org stays under its limit of 20.
afterEach(async () => {
  const list = (await h.call(acme.admin, { method: 'GET', url: BASE })).json() as Array<{
    id: string;
  }>;
  for (const { id } of list) await h.call(acme.admin, { method: 'DELETE', url: `${BASE}/${id}` });
});

const BASE = '/v1/webhook-endpoints';

async function freshEndpoint(): Promise<string> {
  const res = await h.call(acme.admin, {
    method: 'POST',
    url: BASE,
    payload: { url: 'https://hooks.example.com/matrix' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

interface Case {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  url: (id: string) => string | Promise<string>;
  payload?: object;
}

/** The retry route needs a delivery: a test event queued by an admin makes one. */
async function deliveryUrl(id: string): Promise<string> {
  await h.call(acme.admin, { method: 'POST', url: `${BASE}/${id}/test` });
  const [delivery] = (
    await h.call(acme.admin, { method: 'GET', url: `${BASE}/${id}/deliveries` })
  ).json();
  return `${BASE}/${id}/deliveries/${delivery.id}/retry`;
}

const ROUTES: Case[] = [
  { method: 'GET', path: BASE, url: () => BASE },
  { method: 'POST', path: BASE, url: () => BASE, payload: { url: 'https://hooks.example.com/x' } },
  { method: 'GET', path: `${BASE}/{id}`, url: (id) => `${BASE}/${id}` },
  {
    method: 'PATCH',
    path: `${BASE}/{id}`,
    url: (id) => `${BASE}/${id}`,
    payload: { description: 'm' },
  },
  { method: 'DELETE', path: `${BASE}/{id}`, url: (id) => `${BASE}/${id}` },
  {
    method: 'POST',
    path: `${BASE}/{id}/rotate-secret`,
    url: (id) => `${BASE}/${id}/rotate-secret`,
  },
  { method: 'POST', path: `${BASE}/{id}/test`, url: (id) => `${BASE}/${id}/test` },
  { method: 'GET', path: `${BASE}/{id}/deliveries`, url: (id) => `${BASE}/${id}/deliveries` },
  {
    method: 'POST',
    path: `${BASE}/{id}/deliveries/{delivery_id}/retry`,
    url: deliveryUrl,
  },
];

const call = async (route: Case, token: string | null, id: string) =>
  h.call(token, {
    method: route.method,
    url: await route.url(id),
    ...(route.payload ? { payload: route.payload } : {}),
  });

it('covers every route of the plane the OpenAPI document lists', async () => {
  const documented = await documentedOperations(h, (path) => path.startsWith(BASE));
  expect(ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(documented.sort());
});

describe.each(ROUTES)('$method $path', (route) => {
  it('answers 401 without a credential', async () => {
    const res = await call(route, null, await freshEndpoint());
    expect(res.statusCode).toBe(401);
  });

  it('refuses a member with 403 and admits an admin and an owner', async () => {
    const member = await h.token({ sub: 'm-wh', org_id: 'matrix_webhooks', org_role: 'member' });
    const refused = await call(route, member, await freshEndpoint());
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('/problems/insufficient-role');
    for (const role of ['admin', 'owner']) {
      const token = await h.token({ sub: `r-${role}`, org_id: 'matrix_webhooks', org_role: role });
      const res = await call(route, token, await freshEndpoint());
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(200);
      expect(res.statusCode).toBeLessThan(300);
    }
  });
});

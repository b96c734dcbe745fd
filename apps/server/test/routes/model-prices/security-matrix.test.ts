import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelPrices } from '../../../src/db/schema.ts';
import { type Harness, startHarness } from '../../support/harness.ts';
import { documentedOperations } from '../../support/security-matrix.ts';

/**
 * Every route of the model prices plane against who may call it: no credential is a 401, a
 * member a 403 with nothing changed, an admin and an owner are admitted.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('matrix_prices');
});
afterAll(() => h.close());

const BASE = '/v1/model-prices';
const ROW = { pattern: 'house-model', effective_from: '2026-01-01' };

/** Puts the row the DELETE case removes, so every case finds something to act on. */
async function putRow(): Promise<void> {
  const res = await h.call(acme.admin, {
    method: 'PUT',
    url: BASE,
    payload: { ...ROW, input_per_million: 1, output_per_million: 2 },
  });
  expect(res.statusCode, res.body).toBe(200);
}

interface Case {
  method: 'GET' | 'PUT' | 'DELETE';
  url: string;
  payload?: object;
}

const ROUTES: Case[] = [
  { method: 'GET', url: BASE },
  { method: 'PUT', url: BASE, payload: { ...ROW, input_per_million: 3, output_per_million: 4 } },
  { method: 'DELETE', url: `${BASE}?pattern=${ROW.pattern}&effective_from=${ROW.effective_from}` },
];

const call = (route: Case, token: string | null) =>
  h.call(token, {
    method: route.method,
    url: route.url,
    ...(route.payload ? { payload: route.payload } : {}),
  });

const storedRows = () =>
  h.ctx.db.select().from(modelPrices).where(eq(modelPrices.orgId, acme.orgId));

it('covers every route of the plane the OpenAPI document lists', async () => {
  const documented = await documentedOperations(h, (path) => path.startsWith(BASE));
  expect(ROUTES.map((r) => `${r.method} ${BASE}`).sort()).toEqual(documented.sort());
});

describe.each(ROUTES)('$method', (route) => {
  it('answers 401 without a credential and changes nothing', async () => {
    await putRow();
    const before = await storedRows();
    const res = await call(route, null);
    expect(res.statusCode).toBe(401);
    expect(await storedRows()).toEqual(before);
  });

  it('refuses a member with 403 and admits an admin and an owner', async () => {
    await putRow();
    const before = await storedRows();
    const member = await h.token({ sub: 'm-mp', org_id: 'matrix_prices', org_role: 'member' });
    const refused = await call(route, member);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('/problems/insufficient-role');
    expect(await storedRows()).toEqual(before);
    for (const role of ['admin', 'owner']) {
      await putRow();
      const token = await h.token({ sub: `r-${role}`, org_id: 'matrix_prices', org_role: role });
      const res = await call(route, token);
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(200);
      expect(res.statusCode).toBeLessThan(300);
    }
  });
});

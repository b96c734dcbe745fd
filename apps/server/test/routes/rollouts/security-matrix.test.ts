import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { documentedOperations } from '../../support/security-matrix.ts';

/**
 * Every route of the rollouts plane against who may call it: no credential is a 401, another
 * org's experiment a 404, a member reads the ramp but may not move it (403, nothing changes),
 * an admin and an owner move it.
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;
const NAME = 'matrix-ramp';

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('matrix_rollouts');
  other = await h.org('matrix_rollouts_other');
  await h.experiment(acme.admin, {
    name: NAME,
    rollout: {
      steps: [
        { coverage: 0.1, hold: 'PT1H' },
        { coverage: 0.5, hold: 'PT1H' },
      ],
      on_violation: 'pause',
    },
  });
});
afterAll(() => h.close());

const BASE = `/v1/experiments/${NAME}/rollout`;
interface Case {
  method: 'GET' | 'POST';
  path: string;
  url: string;
  payload?: object;
  /** The weakest role admitted. */
  role: 'member' | 'admin';
}
const ROUTES: Case[] = [
  { method: 'GET', path: '/v1/experiments/{id}/rollout', url: BASE, role: 'member' },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/rollout/evaluations',
    url: `${BASE}/evaluations`,
    role: 'member',
  },
  {
    method: 'POST',
    path: '/v1/experiments/{id}/rollout/pause',
    url: `${BASE}/pause`,
    role: 'admin',
  },
  {
    method: 'POST',
    path: '/v1/experiments/{id}/rollout/resume',
    url: `${BASE}/resume`,
    role: 'admin',
  },
  {
    method: 'POST',
    path: '/v1/experiments/{id}/rollout/jump',
    url: `${BASE}/jump`,
    payload: { step: 2 },
    role: 'admin',
  },
];
const call = (route: Case, token: string | null) =>
  h.call(token, { method: route.method, url: route.url, payload: route.payload ?? {} });
const state = async () => (await h.call(acme.admin, { method: 'GET', url: BASE })).json();

it('covers every route of the plane the OpenAPI document lists', async () => {
  const documented = await documentedOperations(h, (path) => path.includes('/rollout'));
  expect(ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(documented.sort());
});

describe.each(ROUTES)('$method $path', (route) => {
  it('answers 401 without a credential and 404 for another org', async () => {
    expect((await call(route, null)).statusCode).toBe(401);
    const res = await call(route, other.admin);
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('/problems/experiment-not-found');
  });

  it('admits its weakest role and refuses the roles below it, changing nothing', async () => {
    const member = await h.token({ sub: 'm-ramp', org_id: 'matrix_rollouts', org_role: 'member' });
    const before = await state();
    const res = await call(route, member);
    if (route.role === 'member') {
      expect(res.statusCode, res.body).toBe(200);
      return;
    }
    expect(res.statusCode).toBe(403);
    expect(res.json().type).toBe('/problems/insufficient-role');
    expect(await state()).toEqual(before);
  });
});

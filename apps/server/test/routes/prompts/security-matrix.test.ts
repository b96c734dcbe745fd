import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { documentedOperations } from '../../support/security-matrix.ts';

/**
 * Every route of the prompts plane against who may call it: no credential is a 401; a member
 * reads and writes prompts and versions but moving a label is a 403 for one (nothing moves);
 * an admin and an owner are admitted everywhere; another org's admin finds no prompt (404).
 */
let h: Harness;
let acme: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;
let fresh = 0;

beforeAll(async () => {
  h = await startHarness();
  acme = await h.org('matrix_prompts');
  other = await h.org('matrix_prompts_other');
});
afterAll(() => h.close());

const BASE = '/v1/prompts';

/** A prompt of org A with one version, under a new name for each call. */
async function freshPrompt(): Promise<string> {
  fresh += 1;
  const name = `matrix-${fresh}`;
  expect(
    (await h.call(acme.admin, { method: 'POST', url: BASE, payload: { name } })).statusCode,
  ).toBe(201);
  const v = await h.call(acme.admin, {
    method: 'POST',
    url: `${BASE}/${name}/versions`,
    payload: { text: 'x' },
  });
  expect(v.statusCode).toBe(201);
  return name;
}

interface Case {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  url: (name: string) => string;
  role: 'member' | 'admin';
  payload?: (name: string) => object;
  /** Whether another org's caller is refused (a path naming org A's prompt); false: its own org's answer. */
  foreign404: boolean;
}

const ROUTES: Case[] = [
  { method: 'GET', path: BASE, url: () => BASE, role: 'member', foreign404: false },
  {
    method: 'POST',
    path: BASE,
    url: () => BASE,
    role: 'member',
    payload: () => ({ name: `created-${fresh}` }),
    foreign404: false,
  },
  {
    method: 'GET',
    path: `${BASE}/{name}`,
    url: (n) => `${BASE}/${n}`,
    role: 'member',
    foreign404: true,
  },
  {
    method: 'POST',
    path: `${BASE}/{name}/versions`,
    url: (n) => `${BASE}/${n}/versions`,
    role: 'member',
    payload: () => ({ text: 'y' }),
    foreign404: true,
  },
  {
    method: 'PUT',
    path: `${BASE}/{name}/labels/{label}`,
    url: (n) => `${BASE}/${n}/labels/production`,
    role: 'admin',
    payload: () => ({ version: 1 }),
    foreign404: true,
  },
];

const call = (route: Case, token: string | null, name: string) =>
  h.call(token, {
    method: route.method,
    url: route.url(name),
    ...(route.payload ? { payload: route.payload(name) } : {}),
  });

it('covers every route of the plane the OpenAPI document lists', async () => {
  const documented = await documentedOperations(h, (path) => path.startsWith(BASE));
  expect(ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(documented.sort());
});

describe.each(ROUTES)('$method $path', (route) => {
  it('answers 401 without a credential', async () => {
    const res = await call(route, null, await freshPrompt());
    expect(res.statusCode).toBe(401);
  });

  it('admits the roles it names and refuses the others with 403, nothing moved', async () => {
    const roles = route.role === 'admin' ? ['admin', 'owner'] : ['member', 'admin', 'owner'];
    for (const role of roles) {
      const token = await h.token({ sub: `p-${role}`, org_id: 'matrix_prompts', org_role: role });
      const res = await call(route, token, await freshPrompt());
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(200);
      expect(res.statusCode).toBeLessThan(300);
    }
    if (route.role === 'member') return;
    const member = await h.token({ sub: 'p-member', org_id: 'matrix_prompts', org_role: 'member' });
    const name = await freshPrompt();
    const refused = await call(route, member, name);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('/problems/insufficient-role');
    const after = await h.call(acme.admin, { method: 'GET', url: `${BASE}/${name}` });
    expect(after.json().labels).toEqual({});
  });

  it('gives another org its own answer, never this org’s prompt', async () => {
    const name = await freshPrompt();
    const res = await call(route, other.admin, name);
    if (route.foreign404) {
      expect(res.statusCode).toBe(404);
      expect(res.json().type).toBe('/problems/prompt-not-found');
    } else {
      expect(res.statusCode).toBeLessThan(300);
      expect(res.body).not.toContain(name);
    }
    const after = await h.call(acme.admin, { method: 'GET', url: `${BASE}/${name}` });
    expect(after.json()).toMatchObject({ latest_version: 1, labels: {} });
  });
});

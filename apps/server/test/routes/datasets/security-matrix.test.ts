import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import {
  ADMIN_SESSION_OR_KEY_PATHS,
  documentedOperations,
  expectSuccess,
  itRefusesAllButSessionOrSecretKey,
} from '../../support/security-matrix.ts';

/**
 * Every route that takes a dashboard session of any role or the org's secret key (datasets and
 * offline runs), against every way a caller can be refused. A route the OpenAPI document lists under both schemes and missing
 * here fails the completeness test.
 */
let h: Harness;
let a: Awaited<ReturnType<Harness['org']>>;
let b: Awaited<ReturnType<Harness['org']>>;
let rotated: string;
let datasetA: string;
let experimentA: string;
let sequence = 0;

interface EitherRouteCase {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /**
   * The request; what it acts on (an item to delete, a run to complete) is made first as org A's
   * admin, one per request.
   */
  request: () => Promise<InjectOptions>;
  /** The problem another org gets for an id of org A. */
  notFound: string;
}

async function freshItem(): Promise<string> {
  const id = `matrix-${++sequence}`;
  const res = await h.call(a.admin, {
    method: 'POST',
    url: `/v1/datasets/${datasetA}/items`,
    headers: { 'content-type': 'application/x-ndjson' },
    payload: JSON.stringify({ id, input: 'x' }),
  });
  expect(res.statusCode).toBe(200);
  return id;
}

async function freshRun(): Promise<string> {
  const res = await h.call(a.admin, {
    method: 'POST',
    url: `/v1/experiments/${experimentA}/offline-runs`,
    payload: { dataset_id: datasetA },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const DATASET = '/problems/dataset-not-found';
const EXPERIMENT = '/problems/experiment-not-found';
const RUN = '/problems/offline-run-not-found';

const ROUTES: EitherRouteCase[] = [
  {
    method: 'GET',
    path: '/v1/datasets',
    request: async () => ({ method: 'GET', url: '/v1/datasets' }),
    notFound: DATASET,
  },
  {
    method: 'POST',
    path: '/v1/datasets',
    request: async () => ({
      method: 'POST',
      url: '/v1/datasets',
      payload: { name: `matrix-${++sequence}` },
    }),
    notFound: DATASET,
  },
  {
    method: 'GET',
    path: '/v1/datasets/{id}',
    request: async () => ({ method: 'GET', url: `/v1/datasets/${datasetA}` }),
    notFound: DATASET,
  },
  {
    method: 'GET',
    path: '/v1/datasets/{id}/items',
    request: async () => ({ method: 'GET', url: `/v1/datasets/${datasetA}/items` }),
    notFound: DATASET,
  },
  {
    method: 'POST',
    path: '/v1/datasets/{id}/items',
    request: async () => ({
      method: 'POST',
      url: `/v1/datasets/${datasetA}/items`,
      headers: { 'content-type': 'text/csv' },
      payload: `id,input\nm-${++sequence},x\n`,
    }),
    notFound: DATASET,
  },
  {
    method: 'DELETE',
    path: '/v1/datasets/{id}/items/{item_id}',
    request: async () => ({
      method: 'DELETE',
      url: `/v1/datasets/${datasetA}/items/${await freshItem()}`,
    }),
    notFound: DATASET,
  },
  {
    method: 'POST',
    path: '/v1/experiments/{id}/offline-runs',
    request: async () => ({
      method: 'POST',
      url: `/v1/experiments/${experimentA}/offline-runs`,
      payload: { dataset_id: datasetA },
    }),
    notFound: EXPERIMENT,
  },
  {
    method: 'GET',
    path: '/v1/experiments/{id}/offline-runs',
    request: async () => ({ method: 'GET', url: `/v1/experiments/${experimentA}/offline-runs` }),
    notFound: EXPERIMENT,
  },
  {
    method: 'POST',
    path: '/v1/offline-runs/{run_id}/results',
    request: async () => ({
      method: 'POST',
      url: `/v1/offline-runs/${await freshRun()}/results`,
      payload: { results: [{ item_id: 'seed', variant: 'control', repeat: 0, output: 'x' }] },
    }),
    notFound: RUN,
  },
  {
    method: 'POST',
    path: '/v1/offline-runs/{run_id}/complete',
    request: async () => ({
      method: 'POST',
      url: `/v1/offline-runs/${await freshRun()}/complete`,
    }),
    notFound: RUN,
  },
  {
    method: 'GET',
    path: '/v1/offline-runs/{run_id}',
    request: async () => ({ method: 'GET', url: `/v1/offline-runs/${await freshRun()}` }),
    notFound: RUN,
  },
  {
    method: 'GET',
    path: '/v1/offline-runs/{run_id}/items',
    request: async () => ({ method: 'GET', url: `/v1/offline-runs/${await freshRun()}/items` }),
    notFound: RUN,
  },
];

beforeAll(async () => {
  h = await startHarness();
  a = await h.org('matrix_datasets_a');
  b = await h.org('matrix_datasets_b');
  const created = await h.call(a.admin, {
    method: 'POST',
    url: '/v1/datasets',
    payload: { name: 'matrix' },
  });
  datasetA = created.json().id;
  await h.call(a.admin, {
    method: 'POST',
    url: `/v1/datasets/${datasetA}/items`,
    payload: { items: [{ id: 'seed', input: 'x', expected_output: 'x' }] },
  });
  experimentA = await h.experiment(a.admin);
  rotated = a.secret;
  a.secret = (
    await h.call(a.admin, { method: 'POST', url: '/v1/keys', payload: { scope: 'secret' } })
  ).json().key;
});
afterAll(() => h.close());

async function send(
  route: EitherRouteCase,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const options = await route.request();
  return h.app.inject({ ...options, headers: { ...(options.headers ?? {}), ...headers } });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const key = (value: string) => ({ 'x-api-key': value });

describe('security matrix of datasets and offline runs (a session or the secret key)', () => {
  it('covers every operation the OpenAPI document lists under both schemes', async () => {
    const both = await documentedOperations(h, (path, op) => {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s as object));
      // The exports plane admits no member: its own matrix (test/routes/exports/).
      if (ADMIN_SESSION_OR_KEY_PATHS.includes(path)) return false;
      return schemes.includes('session') && schemes.includes('apiKey');
    });
    expect(ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(both.sort());
  });

  describe.each(ROUTES)('$method $path', (route) => {
    itRefusesAllButSessionOrSecretKey(
      (headers) => send(route, headers),
      () => ({ h, rotated, publishable: a.publishable }),
    );

    it('admits a member, an admin and the secret key', async () => {
      const member = await h.idp.sign({
        sub: 'dm',
        org_id: 'matrix_datasets_a',
        org_role: 'member',
      });
      expectSuccess(await send(route, bearer(member)));
      expectSuccess(await send(route, bearer(a.admin)));
      expectSuccess(await send(route, key(a.secret)));
    });

    if (route.path.includes('{')) {
      it('answers 404 to another org, by session and by key', async () => {
        for (const headers of [bearer(b.admin), key(b.secret)]) {
          const res = await send(route, headers);
          expect(res.statusCode).toBe(404);
          expect(res.json().type).toBe(route.notFound);
        }
      });
    }
  });
});

import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/http/problems.ts';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({ ARBITER_BODY_LIMIT_BYTES: '4096' });
  token = await h.token({ org_id: 'errs', org_role: 'admin' });
});
afterAll(() => h.close());

function expectProblem(res: LightMyRequestResponse, status: number, type: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(
    expect.arrayContaining(['detail', 'instance', 'status', 'title', 'type']),
  );
  expect(body.type).toBe(type);
  expect(body.status).toBe(status);
  return body;
}

describe('every non-2xx answer is an RFC 9457 problem', () => {
  it('an unknown route', async () => {
    const body = expectProblem(
      await h.call(null, { method: 'GET', url: '/v1/nothing-here?x=1' }),
      404,
      '/problems/not-found',
    );
    expect(body).toEqual({
      type: '/problems/not-found',
      title: 'Not found',
      status: 404,
      detail: 'No route GET /v1/nothing-here',
      instance: '/v1/nothing-here',
    });
  });

  it('malformed JSON', async () => {
    const res = await h.call(token, {
      method: 'POST',
      url: '/v1/experiments',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(expectProblem(res, 400, '/problems/malformed-json').detail).toBe(
      'The body could not be parsed as JSON',
    );
  });

  it('an empty JSON body', async () => {
    const res = await h.call(token, {
      method: 'POST',
      url: '/v1/experiments',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expectProblem(res, 400, '/problems/malformed-json');
  });

  it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded'])(
    'a wrong content type: %s',
    async (type) => {
      const res = await h.call(token, {
        method: 'POST',
        url: '/v1/experiments',
        headers: { 'content-type': type },
        payload: 'name=x',
      });
      expect(expectProblem(res, 415, '/problems/unsupported-media-type').detail).toBe(
        `Content-Type ${type} is not accepted here`,
      );
    },
  );

  it('a body over the stated limit', async () => {
    const huge = experimentConfig({ description: 'x'.repeat(5000) });
    const res = await h.call(token, { method: 'POST', url: '/v1/experiments', payload: huge });
    expectProblem(res, 413, '/problems/payload-too-large');
  });

  it('an internal failure: a generic 500 with no stack trace or SQL', async () => {
    const broken = await h.call(token, { method: 'GET', url: '/v1/experiments' });
    expect(broken.statusCode).toBe(200);
    const original = h.ctx.db.select.bind(h.ctx.db);
    (h.ctx.db as { select: unknown }).select = () => {
      throw new Error('relation "experiments" does not exist; select * from experiments');
    };
    try {
      const res = await h.call(token, { method: 'GET', url: '/v1/experiments' });
      const body = expectProblem(res, 500, '/problems/internal-error');
      expect(body.detail).toMatch(/^Request \S+ failed; the server log has the cause$/);
      expect(res.body).not.toMatch(/select|relation|at \w+ \(/i);
    } finally {
      (h.ctx.db as { select: unknown }).select = original;
    }
  });
});

describe('problem types are documented at their URI', () => {
  it.each(Object.keys(PROBLEMS))('/problems/%s', async (slug) => {
    const res = await h.call(null, { method: 'GET', url: `/problems/${slug}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain(
      PROBLEMS[slug as keyof typeof PROBLEMS].title.replace(/&/g, '&amp;'),
    );
  });

  it('an unknown problem type is itself a 404 problem', async () => {
    expectProblem(
      await h.call(null, { method: 'GET', url: '/problems/nope' }),
      404,
      '/problems/not-found',
    );
  });
});

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document with schemas for every route', async () => {
    const res = await h.call(null, { method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const create = doc.paths['/v1/experiments'].post;
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['name', 'salt', 'bucket_count', 'allocation', 'metrics', 'variants']),
    );
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401']));
    expect(doc.components.securitySchemes.session).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    // the document covers itself, the problem pages and every plane
    for (const path of [
      '/v1/openapi.json',
      '/problems/{slug}',
      '/v1/events/import',
      '/v1/business-events',
      '/v1/admin/pipeline/run',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
  });

  it('serves a readable docs page', async () => {
    const res = await h.call(null, { method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger-ui');
  });
});

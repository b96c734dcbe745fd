import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileBodyValidator } from '../../src/schemas/validators.ts';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';

/**
 * The OpenAPI document is as strict as the server: problems are declared as
 * application/problem+json with the shared Problem schema, every operation lists the statuses
 * its edge can answer, schemas say what the checks refuse, and real answers carry a status and
 * media type their operation declares.
 */
interface Operation {
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ in: string; name: string; schema: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

let h: Harness;
let doc: Doc;
let admin: string;
let org: Awaited<ReturnType<Harness['org']>>;

beforeAll(async () => {
  h = await startHarness({
    ARBITER_BODY_LIMIT_BYTES: '4096',
    ARBITER_PLATFORM_OWNER_EMAILS: 'boss@arbiter.test',
  });
  doc = (await h.call(null, { method: 'GET', url: '/v1/openapi.json' })).json();
  org = await h.org('contract');
  admin = org.admin;
});
afterAll(() => h.close());

function operations(): Array<[string, string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(
      ([method, op]) => [method.toUpperCase(), path, op] as [string, string, Operation],
    ),
  );
}

const PROBLEM = { schema: { $ref: '#/components/schemas/Problem' } };

describe('the document', () => {
  it('declares every error as application/problem+json with the Problem schema', () => {
    let errors = 0;
    for (const [method, path, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        errors += 1;
        // OFREP defines its own error body for what it names (PARSE_ERROR, FLAG_NOT_FOUND, …):
        // its 400 and 404 are JSON of that shape, for the generic providers to read.
        if (path.startsWith('/ofrep/') && (status === '400' || status === '404')) {
          expect(Object.keys(response.content ?? {}), `${method} ${path} ${status}`).toEqual([
            'application/json',
          ]);
          continue;
        }
        expect(response.content, `${method} ${path} ${status}`).toEqual({
          'application/problem+json': PROBLEM,
        });
      }
    }
    expect(errors).toBeGreaterThan(100);
    expect(doc.components.schemas.Problem).toMatchObject({
      type: 'object',
      required: ['type', 'title', 'status', 'detail', 'instance'],
    });
  });

  it('lists the statuses each operation’s edge can answer', () => {
    for (const [method, path, op] of operations()) {
      const declared = Object.keys(op.responses).map(Number);
      const where = `${method} ${path}`;
      if (op.requestBody) expect(declared, where).toEqual(expect.arrayContaining([400, 413, 415]));
      if (op.parameters?.some((p) => p.in === 'path'))
        expect(declared, where).toEqual(expect.arrayContaining([400, 414]));
      if (op.parameters?.some((p) => p.in === 'query')) expect(declared, where).toContain(400);
      if (op.security === undefined)
        expect(declared, where).toEqual(expect.arrayContaining([401, 403]));
      if (op.security?.some((s) => 'apiKey' in s)) expect(declared, where).toContain(401);
    }
    // and the statuses the contract names for particular routes
    const statuses = (method: string, path: string) =>
      Object.keys(doc.paths[path]?.[method]?.responses ?? {}).map(Number);
    expect(statuses('post', '/v1/experiments/{id}/test-event')).toEqual(
      expect.arrayContaining([202, 404, 429]),
    );
    expect(statuses('post', '/v1/webhook-secrets')).toEqual(
      expect.arrayContaining([201, 403, 409]),
    );
    expect(statuses('post', '/v1/events')).toEqual(expect.arrayContaining([202, 401, 429]));
    expect(statuses('get', '/v1/config')).toEqual(expect.arrayContaining([200, 304, 401]));
    expect(statuses('get', '/problems/{slug}')).toEqual(expect.arrayContaining([200, 404]));
    expect(statuses('post', '/v1/contact')).toEqual(expect.arrayContaining([202, 400, 429]));
    expect(doc.paths['/v1/contact']?.post?.security).toEqual([]);
    for (const path of [
      '/v1/admin/inbox',
      '/v1/admin/overview',
      '/v1/admin/orgs',
      '/v1/admin/health',
    ])
      expect(statuses('get', path), path).toEqual(expect.arrayContaining([200, 401, 403]));
    expect(statuses('get', '/v1/admin/orgs/{id}')).toEqual(
      expect.arrayContaining([200, 401, 403, 404]),
    );
    expect(statuses('post', '/v1/webhooks/clerk')).toEqual(expect.arrayContaining([204, 400, 401]));
    expect(doc.paths['/v1/webhooks/clerk']?.post?.security).toEqual([{ svix: [] }]);
    expect(statuses('post', '/v1/admin/seats/resync')).toEqual(
      expect.arrayContaining([200, 401, 403, 409, 502]),
    );
  });

  it('states what the checks refuse', () => {
    const body = (method: string, path: string, type = 'application/json') =>
      doc.paths[path]?.[method]?.requestBody?.content[type]?.schema as {
        properties: Record<string, Record<string, unknown>>;
      };

    const allocation = body('post', '/v1/experiments').properties.allocation;
    expect(allocation).toMatchObject({ type: 'array', minItems: 1 });

    const day = doc.paths['/v1/experiments/{id}/results']?.get?.parameters?.find(
      (p) => p.name === 'day',
    )?.schema as { pattern: string };
    const dayOk = (value: string) => new RegExp(day.pattern).test(value);
    expect(['2026-11-20', 'manual-2026-11-20T10:00:00.000Z'].every(dayOk)).toBe(true);
    expect(['soon', '2026-11-20x', 'manual-yesterday'].some(dayOk)).toBe(false);

    // Each event by type: never null, no unknown fields, model fields only on model_call.
    const item = (body('post', '/v1/events').properties.events as { items: object }).items;
    const event = compileBodyValidator(item);
    const base = {
      event_id: 'e1',
      experiment_id: 'x',
      user_id: 'u',
      timestamp: '2026-11-20T10:00:00Z',
    };
    expect(event({ ...base, type: 'exposure' })).toBe(true);
    expect(event({ ...base, type: 'business_event', business_metric: 'm', value: 1 })).toBe(true);
    expect(event(null)).toBe(false);
    expect(event({ ...base, type: 'exposure', latency_ms: 5 })).toBe(false);
    expect(event({ ...base, type: 'business_event', business_metric: 'm' })).toBe(false);
    expect(event({ ...base, type: 'model_call', surprise: 1 })).toBe(false);

    const csv = compileBodyValidator(body('post', '/v1/events/import', 'text/csv'));
    expect(csv('')).toBe(false);
    expect(csv('event_id,type\n')).toBe(true);

    expect(doc.paths['/v1/business-events']?.post?.security).toEqual([{ signature: [] }]);
  });
});

/** The declared media types of `status` on the operation, or undefined when not declared. */
function declaredMedia(method: string, path: string, status: number): string[] | undefined {
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  return response === undefined ? undefined : Object.keys(response.content ?? {});
}

async function expectDeclared(
  path: string,
  options: InjectOptions,
  status: number,
  send: (options: InjectOptions) => Promise<LightMyRequestResponse>,
) {
  const res = await send(options);
  expect(res.statusCode, res.body).toBe(status);
  const media = declaredMedia(options.method as string, path, status);
  expect(media, `${status} is declared on ${options.method} ${path}`).toBeDefined();
  const sent = String(res.headers['content-type'] ?? '').split(';')[0];
  if (media?.length === 0) expect(res.body).toBe('');
  else expect(media).toContain(sent);
  if (status >= 400) {
    const problem = compileBodyValidator(doc.components.schemas.Problem as object);
    expect(problem(res.json())).toBe(true);
  }
}

describe('real answers carry a declared status and media type', () => {
  const session = (options: InjectOptions, token: string | null = admin) => h.call(token, options);
  const keyed = (options: InjectOptions, key: string | null = org.publishable) =>
    h.ingest(key, options);

  it('dashboard answers', async () => {
    const id = await h.experiment(admin);
    await expectDeclared(
      '/v1/experiments',
      { method: 'GET', url: '/v1/experiments' },
      200,
      session,
    );
    await expectDeclared('/v1/experiments', { method: 'GET', url: '/v1/experiments' }, 401, (o) =>
      session(o, null),
    );
    const noOrg = await h.token({ sub: 'lonely', org_id: null });
    await expectDeclared('/v1/experiments', { method: 'GET', url: '/v1/experiments' }, 403, (o) =>
      session(o, noOrg),
    );
    await expectDeclared(
      '/v1/experiments',
      { method: 'POST', url: '/v1/experiments', payload: experimentConfig() },
      201,
      session,
    );
    await expectDeclared(
      '/v1/experiments',
      {
        method: 'POST',
        url: '/v1/experiments',
        payload: { ...experimentConfig(), allocation: [] },
      },
      400,
      session,
    );
    await expectDeclared(
      '/v1/experiments',
      {
        method: 'POST',
        url: '/v1/experiments',
        headers: { 'content-type': 'text/plain' },
        payload: 'x',
      },
      415,
      session,
    );
    await expectDeclared(
      '/v1/experiments',
      {
        method: 'POST',
        url: '/v1/experiments',
        payload: experimentConfig({ description: 'x'.repeat(5000) }),
      },
      413,
      session,
    );
    await expectDeclared(
      '/v1/experiments/{id}',
      { method: 'GET', url: '/v1/experiments/00000000-0000-4000-8000-000000000000' },
      404,
      session,
    );
    await expectDeclared(
      '/v1/experiments/{id}/results',
      { method: 'GET', url: `/v1/experiments/${id}/results?day=soon` },
      400,
      session,
    );
    await expectDeclared(
      '/v1/experiments/{id}/results',
      { method: 'GET', url: `/v1/experiments/${id}/results` },
      404,
      session,
    );
    for (let i = 0; i < 5; i++)
      await expectDeclared(
        '/v1/experiments/{id}/test-event',
        { method: 'POST', url: `/v1/experiments/${id}/test-event` },
        202,
        session,
      );
    await expectDeclared(
      '/v1/experiments/{id}/test-event',
      { method: 'POST', url: `/v1/experiments/${id}/test-event` },
      429,
      session,
    );
    const member = await h.token({ sub: 'member-1', org_id: 'contract', org_role: 'member' });
    await expectDeclared(
      '/v1/keys',
      { method: 'POST', url: '/v1/keys', payload: { scope: 'secret' } },
      403,
      (o) => session(o, member),
    );
  });

  it('ingest answers', async () => {
    await expectDeclared('/v1/config', { method: 'GET', url: '/v1/config' }, 401, (o) =>
      keyed(o, null),
    );
    const config = await keyed({ method: 'GET', url: '/v1/config' });
    await expectDeclared(
      '/v1/config',
      {
        method: 'GET',
        url: '/v1/config',
        headers: { 'if-none-match': config.headers.etag as string },
      },
      304,
      keyed,
    );
    await expectDeclared(
      '/v1/assign',
      { method: 'POST', url: '/v1/assign', payload: { experiment_id: 'x', user_id: 'u' } },
      200,
      keyed,
    );
    await expectDeclared(
      '/v1/events',
      { method: 'POST', url: '/v1/events', payload: { events: [null] } },
      400,
      keyed,
    );
    await expectDeclared(
      '/v1/events/import',
      {
        method: 'POST',
        url: '/v1/events/import',
        headers: { 'content-type': 'text/csv' },
        payload: 'x',
      },
      401,
      keyed,
    );
    await expectDeclared(
      '/v1/events/import',
      {
        method: 'POST',
        url: '/v1/events/import',
        headers: { 'content-type': 'text/csv' },
        payload: '',
      },
      400,
      (o) => keyed(o, org.secret),
    );
  });

  it('exports answers', async () => {
    await h.experiment(admin, { name: 'contract-export' });
    const url = (query: string) => ({ method: 'GET' as const, url: `/v1/events/export?${query}` });
    const path = '/v1/events/export';
    await expectDeclared(path, url('experiment=contract-export&day=2026-01-01'), 200, session);
    await expectDeclared(path, url('experiment=contract-export&day=2026-01-01'), 200, (o) =>
      keyed(o, org.secret),
    );
    await expectDeclared(path, url('experiment=contract-export&day=2026-02-30'), 400, session);
    await expectDeclared(path, url('experiment=nope&day=2026-01-01'), 404, session);
    await expectDeclared(path, url('experiment=contract-export&day=2026-01-01'), 401, keyed);
    const member = await h.token({ sub: 'member-2', org_id: 'contract', org_role: 'member' });
    await expectDeclared(path, url('experiment=contract-export&day=2026-01-01'), 403, (o) =>
      session(o, member),
    );
  });

  it('public and platform-owner answers', async () => {
    const contact = (payload: object) => ({ method: 'POST' as const, url: '/v1/contact', payload });
    const message = { name: 'Pat', email: 'pat@prospect.test', message: 'Hello' };
    for (let i = 0; i < 5; i++) await expectDeclared('/v1/contact', contact(message), 202, session);
    await expectDeclared('/v1/contact', contact({ ...message, email: 'nope' }), 400, session);
    await expectDeclared('/v1/contact', contact(message), 429, session);
    const inbox = { method: 'GET' as const, url: '/v1/admin/inbox' };
    await expectDeclared('/v1/admin/inbox', inbox, 403, session);
    await expectDeclared('/v1/admin/inbox', inbox, 401, (o) => session(o, null));
    const owner = await h.token({ sub: 'boss', email: 'boss@arbiter.test', org_id: null });
    await expectDeclared('/v1/admin/inbox', inbox, 200, (o) => session(o, owner));
    for (const path of ['/v1/admin/overview', '/v1/admin/orgs', '/v1/admin/health'])
      await expectDeclared(path, { method: 'GET', url: path }, 200, (o) => session(o, owner));
    await expectDeclared(
      '/v1/admin/orgs/{id}',
      { method: 'GET', url: `/v1/admin/orgs/${org.orgId}` },
      200,
      (o) => session(o, owner),
    );
    await expectDeclared(
      '/v1/admin/orgs/{id}',
      { method: 'GET', url: '/v1/admin/orgs/nobody' },
      404,
      (o) => session(o, owner),
    );
  });

  it('meta answers', async () => {
    await expectDeclared(
      '/problems/{slug}',
      { method: 'GET', url: '/problems/not-found' },
      200,
      session,
    );
    await expectDeclared(
      '/problems/{slug}',
      { method: 'GET', url: '/problems/nope' },
      404,
      session,
    );
    await expectDeclared(
      '/v1/openapi.json',
      { method: 'GET', url: '/v1/openapi.json' },
      200,
      session,
    );
  });
});

import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '../../src/http/problems.ts';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';
import { type RawAnswer, rawRequest, sendRaw } from '../support/raw-http.ts';

/**
 * The HTTP edge: what Node's parser and Fastify's router refuse before a route runs is a
 * problem like every other error. Sent over raw sockets to a listening server, because
 * inject() never goes through Node's parser.
 */
let h: Harness;
let port: number;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as { port: number }).port;
  token = await h.token({ org_id: 'edge', org_role: 'admin' });
});
afterAll(() => h.close());

/** Writes `text` as is and reads the answer until the server closes the connection. */
const raw = (text: string | Buffer) => sendRaw(port, text);

function expectProblem(answer: RawAnswer, slug: keyof typeof PROBLEMS, instance: string) {
  expect(answer.status).toBe(PROBLEMS[slug].status);
  expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  const body = JSON.parse(answer.body);
  expect(body).toMatchObject({
    type: `/problems/${slug}`,
    title: PROBLEMS[slug].title,
    status: PROBLEMS[slug].status,
    instance,
  });
  expect(typeof body.detail).toBe('string');
  return body as { detail: string };
}

describe("Node's parser refusals are problems", () => {
  it('a malformed request line: 400', async () => {
    expectProblem(await raw('GARBAGE\r\n\r\n'), 'bad-request', '/');
  });

  it('a malformed header: 400 naming the parser error', async () => {
    const answer = await raw(rawRequest('GET', '/v1/whoami', ['Bad Header: x']));
    const body = expectProblem(answer, 'bad-request', '/v1/whoami');
    expect(body.detail).toContain('HPE_INVALID_HEADER_TOKEN');
  });

  it('an invalid Content-Length: 400', async () => {
    const answer = await raw(rawRequest('POST', '/v1/experiments', ['Content-Length: abc'], '{}'));
    expectProblem(answer, 'bad-request', '/v1/experiments');
  });

  it('headers over 16 KiB: 431', async () => {
    const answer = await raw(rawRequest('GET', '/v1/whoami', [`X-Big: ${'a'.repeat(20_000)}`]));
    expectProblem(answer, 'header-fields-too-large', '/v1/whoami');
  });

  it('a request target over 16 KiB: 414', async () => {
    const answer = await raw(rawRequest('GET', `/v1/${'a'.repeat(20_000)}`));
    expectProblem(answer, 'uri-too-long', '/');
  });
});

describe("Fastify's routing refusals are problems", () => {
  it('a path parameter longer than its schema allows: 400 naming the parameter', async () => {
    const path = `/v1/experiments/${'a'.repeat(201)}`;
    const answer = await raw(rawRequest('GET', path, [`Authorization: Bearer ${token}`]));
    const body = expectProblem(answer, 'validation-error', path);
    expect(body).toMatchObject({
      errors: [{ parameter: 'id', detail: 'must NOT have more than 200 characters' }],
    });
  });

  it('a path segment over the router limit (4,096 characters): 414', async () => {
    const path = `/v1/experiments/${'a'.repeat(4097)}`;
    const body = expectProblem(await raw(rawRequest('GET', path)), 'uri-too-long', path);
    expect(body.detail).toBe('A path segment exceeds 4096 characters');
  });

  it('a URL that is not valid percent-encoding: 400', async () => {
    expectProblem(
      await raw(rawRequest('GET', '/v1/experiments/%zz')),
      'bad-request',
      '/v1/experiments/%zz',
    );
  });

  it('an unknown path: 404', async () => {
    expectProblem(await raw(rawRequest('GET', '/v1/nowhere')), 'not-found', '/v1/nowhere');
  });

  it.each(['DELETE', 'PATCH', 'TRACE'])('%s on a known path: 405 with Allow', async (method) => {
    const answer = await raw(rawRequest(method, '/v1/experiments', ['Content-Length: 0']));
    expectProblem(answer, 'method-not-allowed', '/v1/experiments');
    expect(answer.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
  });

  it('an unknown method such as QUERY: 405, with or without a body', async () => {
    const bare = await raw(rawRequest('QUERY', '/v1/experiments/x/results'));
    expectProblem(bare, 'method-not-allowed', '/v1/experiments/x/results');
    expect(bare.headers.allow).toBe('GET, HEAD, OPTIONS');
    const withBody = await raw(
      rawRequest(
        'QUERY',
        '/v1/experiments',
        ['Content-Type: application/json', 'Content-Length: 7'],
        '{"a":1}',
      ),
    );
    expectProblem(withBody, 'method-not-allowed', '/v1/experiments');
  });

  it('QUERY on an unknown path is a 404', async () => {
    expectProblem(await raw(rawRequest('QUERY', '/v1/nowhere')), 'not-found', '/v1/nowhere');
  });

  it('a plain OPTIONS (no CORS headers) is answered, not refused as a bad preflight', async () => {
    const answer = await raw(rawRequest('OPTIONS', '/v1/events'));
    expect(answer.status).toBe(204);
  });
});

describe('a compressed body is refused with 415', () => {
  it.each(['gzip', 'deflate', 'br', 'gzip, identity'])(
    'Content-Encoding: %s on a JSON route',
    async (coding) => {
      const body = gzipSync(JSON.stringify(experimentConfig()));
      const head = rawRequest('POST', '/v1/experiments', [
        `Authorization: Bearer ${token}`,
        'Content-Type: application/json',
        `Content-Encoding: ${coding}`,
        `Content-Length: ${body.length}`,
      ]);
      const answer = await raw(Buffer.concat([Buffer.from(head), body]));
      const problem = expectProblem(answer, 'unsupported-content-encoding', '/v1/experiments');
      expect(problem.detail).toBe(
        `Content-Encoding ${coding.replace(', identity', '')} is not accepted; send the body uncompressed`,
      );
      expect(answer.headers['accept-encoding']).toBe('identity');
      // nothing was created
      const list = await h.call(token, { method: 'GET', url: '/v1/experiments' });
      expect(list.json()).toEqual([]);
    },
  );

  it('Content-Encoding: identity is read as usual', async () => {
    const res = await h.call(token, {
      method: 'POST',
      url: '/v1/experiments',
      headers: { 'content-encoding': 'identity' },
      payload: experimentConfig({ name: 'identity-coded' }),
    });
    expect(res.statusCode).toBe(201);
  });
});

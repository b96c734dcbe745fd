import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clerkOrganization } from './clerk-webhooks.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeClerkApi {
  /** The API URL to configure (the SDK appends /v1/...). */
  url: string;
  /** Organizations by id, with their `max_allowed_memberships` (0 = unlimited). */
  orgs: Map<string, number>;
  requests: RecordedRequest[];
  /** Org ids whose update the fake refuses with Clerk's error shape. */
  refuse: Set<string>;
  close(): Promise<void>;
}

function organizationJson(id: string, cap: number) {
  return { ...clerkOrganization(id, id, 1_700_000_000_000), max_allowed_memberships: cap };
}

/**
 * A local server speaking the two Backend API endpoints seat resync uses, as Clerk answers
 * them: `GET /v1/organizations` (paginated with limit/offset, `{data, total_count}`) and
 * `PATCH /v1/organizations/{id}` (snake_case body, the organization back).
 */
export async function startFakeClerkApi(): Promise<FakeClerkApi> {
  const orgs = new Map<string, number>();
  const requests: RecordedRequest[] = [];
  const refuse = new Set<string>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const body = raw === '' ? null : JSON.parse(raw);
      const query = Object.fromEntries(url.searchParams);
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query,
        headers: req.headers,
        body,
      });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.headers.authorization !== 'Bearer sk_test_arbiter')
        return send(401, { errors: [{ code: 'authentication_invalid', message: 'Unauthorized' }] });
      if (req.method === 'GET' && url.pathname === '/v1/organizations') {
        const limit = Number(query.limit ?? 10);
        const offset = Number(query.offset ?? 0);
        const all = [...orgs.entries()].sort(([a], [b]) => a.localeCompare(b));
        const data = all
          .slice(offset, offset + limit)
          .map(([id, cap]) => organizationJson(id, cap));
        return send(200, { data, total_count: all.length });
      }
      const match = /^\/v1\/organizations\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'PATCH' && match) {
        const id = decodeURIComponent(match[1] as string);
        if (!orgs.has(id))
          return send(404, { errors: [{ code: 'resource_not_found', message: 'not found' }] });
        if (refuse.has(id))
          return send(422, {
            errors: [
              {
                code: 'form_param_value_invalid',
                message: 'is invalid',
                long_message: 'max_allowed_memberships cannot be below the current member count',
              },
            ],
          });
        orgs.set(id, (body as { max_allowed_memberships: number }).max_allowed_memberships);
        return send(200, organizationJson(id, orgs.get(id) as number));
      }
      send(404, { errors: [{ code: 'resource_not_found', message: `no route ${url.pathname}` }] });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    orgs,
    requests,
    refuse,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

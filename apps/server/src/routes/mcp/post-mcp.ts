import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/app-types.ts';
import { API_VERSION } from '../../http/openapi-document.ts';
import type { Api } from '../../mcp/api.ts';
import { createMcpServer } from '../../mcp/server.ts';

/** The caller's credential as it came: a session's Authorization, or the secret key's X-API-Key. */
function credentialOf(request: FastifyRequest): Record<string, string> {
  const { authorization } = request.headers;
  if (authorization !== undefined) return { authorization };
  const key = request.headers['x-api-key'];
  return typeof key === 'string' ? { 'x-api-key': key } : {};
}

/** The API as the caller sees it: each call is the route's own request, made in this process with the caller's credential. */
export function apiFor(app: App, credential: Record<string, string>): Api {
  return async ({ method, path, query, body }) => {
    const res = await app.inject({
      method,
      url: path,
      ...(query === undefined ? {} : { query }),
      headers: {
        ...credential,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: res.body === '' ? null : JSON.parse(res.body) };
  };
}

export function register(app: App): void {
  app.post(
    '/mcp',
    // JSON-RPC over Streamable HTTP, not a REST operation: kept out of the OpenAPI document
    // (docs/decisions/mcp.md#the-endpoint-and-the-openapi-document).
    { schema: { hide: true } },
    async (request, reply) => {
      // Stateless: a server and a transport per request, no MCP session to keep or to steal.
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      const server = createMcpServer(apiFor(app, credentialOf(request)), API_VERSION);
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
}

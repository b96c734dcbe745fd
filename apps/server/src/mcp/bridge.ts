import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The `/mcp` endpoint of the API server at `base`. */
export function mcpEndpoint(base: string): URL {
  return new URL('mcp', base.endsWith('/') ? base : `${base}/`);
}

/** The remote transport: the server's Streamable HTTP endpoint, every request with the credential. */
export function remoteTransport(base: string, headers: Record<string, string>) {
  return new StreamableHTTPClientTransport(mcpEndpoint(base), { requestInit: { headers } });
}

function idOf(message: JSONRPCMessage): string | number | undefined {
  return 'id' in message && 'method' in message ? message.id : undefined;
}

/**
 * Joins a local transport (stdio) to the server's endpoint message by message, so the stdio
 * server is the HTTP one: the same tools, checks and answers, nothing implemented twice. A
 * request the endpoint refuses (a wrong credential, a server that is down) is answered locally
 * as a JSON-RPC error saying why. Resolves when the local side closes.
 */
export async function bridge(
  local: Transport,
  remote: StreamableHTTPClientTransport,
): Promise<void> {
  let initializeId: string | number | undefined;
  remote.onmessage = (message) => {
    if ('result' in message && message.id === initializeId) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    }
    void local.send(message);
  };
  local.onmessage = (message) => {
    const id = idOf(message);
    if ('method' in message && message.method === 'initialize') initializeId = id;
    remote.send(message).catch((error: unknown) => {
      if (id === undefined) return;
      const reason = error instanceof Error ? error.message : String(error);
      void local.send({ jsonrpc: '2.0', id, error: { code: -32000, message: reason } });
    });
  };
  const closed = new Promise<void>((resolve) => {
    local.onclose = () => resolve();
  });
  await remote.start();
  await local.start();
  await closed;
  await remote.close();
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The credential headers of a session token or a key. */
export function sessionHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function keyHeaders(key: string): Record<string, string> {
  return { 'x-api-key': key };
}

/** The SDK's own client, connected over `transport`. */
export async function connected(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'arbiter-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The SDK's client over Streamable HTTP to `base`/mcp with the credential. */
export function httpClient(base: string, headers: Record<string, string>): Promise<Client> {
  return connected(
    new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers } }),
  );
}

/** A tool's answer as the API's: its JSON body, and the problem's status when it is one. */
export interface ToolOutcome {
  isError: boolean;
  body: unknown;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  const text = content[0]?.text ?? 'null';
  return { isError: result.isError === true, body: JSON.parse(text) };
}

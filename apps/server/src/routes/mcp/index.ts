import type { ApiKeyDeps } from '../../http/api-key-auth.ts';
import type { Plane } from '../../http/app-types.ts';
import type { SessionDeps } from '../../http/session-auth.ts';
import { useSessionOrSecretKey } from '../../http/session-or-key-auth.ts';
import * as postMcp from './post-mcp.ts';

/** What the MCP plane's hook uses: its tools reach the rest through the routes themselves. */
export type McpDeps = SessionDeps & ApiKeyDeps;

/**
 * The MCP plane: the Streamable HTTP endpoint of the MCP server, behind a dashboard session or
 * the org's secret key, checked here so an agent without either is refused before any tool; each
 * tool then calls its route with the same credential (docs/decisions/mcp.md#tools-call-the-routes).
 */
export const mcpRoutes: Plane<McpDeps> = async (app, { ctx }) => {
  useSessionOrSecretKey(app, ctx);
  postMcp.register(app);
};

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/create-context.ts';
import { type OpenApiDocument, toolInputSchemas } from '../src/mcp/tool-schemas.ts';

/** Where the document is kept: beside the rest of what the server and its callers share. */
export const OPENAPI_FILE = new URL('../../../packages/contract/openapi.json', import.meta.url);

/**
 * The server's OpenAPI document (what GET /v1/openapi.json answers), indented for review, from
 * an app built in this process on a throw-away embedded database, in development mode so the
 * development sign-in route is described too. The dashboard's build reads the file this
 * writes, not the server's sources.
 */
export async function openApiDocumentText(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-openapi-'));
  try {
    const config = loadConfig({
      ARBITER_DATA_DIR: dataDir,
      ARBITER_LOG_LEVEL: 'silent',
      ARBITER_INGEST_WORKER: 'false',
      ARBITER_SCHEDULER: 'false',
    });
    const ctx = await createContext(config);
    try {
      const app = await buildApp(ctx, { logger: false });
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      await app.close();
      return `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`;
    } finally {
      await ctx.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Where the MCP tools' input schemas are kept: generated from the document, beside the tools. */
export const MCP_TOOL_SCHEMAS_FILE = new URL(
  '../src/mcp/tool-schemas.generated.json',
  import.meta.url,
);

/** The MCP tools' input schemas, by tool name, from the OpenAPI document's text. */
export function mcpToolSchemasText(documentText: string): string {
  const schemas = toolInputSchemas(JSON.parse(documentText) as OpenApiDocument);
  return `${JSON.stringify(schemas, null, 2)}\n`;
}

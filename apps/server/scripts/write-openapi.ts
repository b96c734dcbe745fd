import { writeFileSync } from 'node:fs';
import {
  MCP_TOOL_SCHEMAS_FILE,
  mcpToolSchemasText,
  OPENAPI_FILE,
  openApiDocumentText,
} from './openapi-document.ts';

/**
 * Writes packages/contract/openapi.json from the server, and the MCP tools' input schemas from
 * that document (the drift tests say when either is due).
 */
const document = await openApiDocumentText();
writeFileSync(OPENAPI_FILE, document);
writeFileSync(MCP_TOOL_SCHEMAS_FILE, mcpToolSchemasText(document));

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Api } from './api.ts';
import { callTool } from './call-tool.ts';
import { DESIGN_PROMPT, designPromptText } from './prompt.ts';
import { listResources, RESOURCE_TEMPLATES, readResource } from './resources.ts';
import { ROUTE_TOOLS } from './tool-catalogue.ts';
import TOOL_INPUT_SCHEMAS from './tool-schemas.generated.json' with { type: 'json' };

const INSTRUCTIONS =
  'Arbiter runs experiments on LLM-backed features. Find experiments with list_experiments, read whether one won with get_results, size one with estimate_sample_size, and create one for a change with create_experiment (the design_experiment prompt walks through it). Every tool calls the Arbiter API as you: it allows what your role allows there and answers its problems (RFC 9457) as error results.';

/** The tool list: each route tool with its generated input schema and its hints. */
export function toolList() {
  const schemas = TOOL_INPUT_SCHEMAS as Record<string, { type: 'object' }>;
  return ROUTE_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: schemas[tool.name] as { type: 'object' },
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: tool.destructive,
      idempotentHint: tool.readOnly,
      openWorldHint: false,
    },
  }));
}

/**
 * One MCP server over the API: tools, the experiments as resources and the design prompt. The
 * low-level `Server`, not `McpServer`: the input schemas are JSON Schema from the contract, which
 * `McpServer.registerTool` would take only as Zod, and the route validates the arguments itself.
 */
export function createMcpServer(api: Api, version: string): Server {
  const server = new Server(
    { name: 'arbiter', title: 'Arbiter', version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(api, request.params.name, request.params.arguments ?? {}),
  );
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listResources(api),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
    readResource(api, request.params.uri),
  );
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [DESIGN_PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== DESIGN_PROMPT.name)
      throw new McpError(ErrorCode.InvalidParams, `No prompt is named ${request.params.name}`);
    const change = request.params.arguments?.change;
    if (change === undefined || change.trim() === '')
      throw new McpError(ErrorCode.InvalidParams, 'The prompt needs the argument change');
    return {
      description: DESIGN_PROMPT.description,
      messages: [{ role: 'user', content: { type: 'text', text: designPromptText(change) } }],
    };
  });
  return server;
}

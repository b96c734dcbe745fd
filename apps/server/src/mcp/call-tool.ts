import type { Api, ApiAnswer, ApiRequest } from './api.ts';
import { ROUTE_TOOLS, type RouteTool } from './tool-catalogue.ts';

/** What a tool call answers, in MCP's shape. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const PARAMETER = /\{([^}]+)\}/g;

/**
 * The route's request from a tool's arguments: path parameters into the path, the other
 * named properties into the query, `body` as the body. What the schema does not name still
 * goes to the route (as a query parameter), which refuses it as it refuses any caller.
 */
export function requestOf(tool: RouteTool, args: Record<string, unknown>): ApiRequest {
  const inPath = new Set<string>();
  const path = tool.path.replace(PARAMETER, (_, name: string) => {
    inPath.add(name);
    return encodeURIComponent(String(args[name] ?? ''));
  });
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) {
    if (inPath.has(name) || name === 'body' || value === undefined) continue;
    query[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return {
    method: tool.method,
    path,
    ...(Object.keys(query).length > 0 ? { query } : {}),
    ...('body' in args ? { body: args.body } : {}),
  };
}

/** An expected answer that is not a failure: results still collecting say what is still needed. */
function isExpected(answer: ApiAnswer): boolean {
  const type = (answer.body as { type?: unknown } | null)?.type;
  return answer.status === 404 && typeof type === 'string' && type.endsWith('/results-collecting');
}

/** The route's answer as the tool's: the JSON as text and as structured content; a problem is an error result carrying the problem whole. */
export function answerOf(answer: ApiAnswer): ToolAnswer {
  const text = JSON.stringify(answer.body ?? null, null, 2);
  const ok = (answer.status >= 200 && answer.status < 300) || isExpected(answer);
  const structured =
    answer.body !== null && typeof answer.body === 'object' && !Array.isArray(answer.body)
      ? { structuredContent: answer.body as Record<string, unknown> }
      : {};
  return { content: [{ type: 'text', text }], ...structured, ...(ok ? {} : { isError: true }) };
}

/** Calls a tool by name; an unknown name is an error result, as MCP asks. */
export async function callTool(
  api: Api,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> {
  const tool = ROUTE_TOOLS.find((t) => t.name === name);
  if (tool === undefined)
    return { content: [{ type: 'text', text: `No tool is named ${name}` }], isError: true };
  return answerOf(await api(requestOf(tool, args)));
}

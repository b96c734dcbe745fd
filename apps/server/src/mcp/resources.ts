import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Api, ApiAnswer } from './api.ts';

const JSON_TYPE = 'application/json';
const CONFIG = /^arbiter:\/\/experiments\/([^/]+)$/;
const RESULTS = /^arbiter:\/\/experiments\/([^/]+)\/results$/;

/** The two resource templates: an experiment's config and its latest results. */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'arbiter://experiments/{id}',
    name: 'experiment-config',
    title: "An experiment's config",
    description: 'The experiment at its latest version: variants, allocation, metrics, status',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'arbiter://experiments/{id}/results',
    name: 'experiment-results',
    title: "An experiment's latest results",
    description:
      'The most recently computed run; while collecting, what is still needed (the API’s results-collecting problem)',
    mimeType: JSON_TYPE,
  },
];

interface Listed {
  id: string;
  name: string;
}

/** Each experiment of the caller's org (the list route's default: every status but archived), as its two resources. */
export async function listResources(api: Api) {
  const answer = await api({ method: 'GET', path: '/v1/experiments' });
  if (answer.status !== 200) throw problemAsError(answer);
  return (answer.body as Listed[]).flatMap((e) => [
    { uri: `arbiter://experiments/${e.id}`, name: `${e.name} config`, mimeType: JSON_TYPE },
    {
      uri: `arbiter://experiments/${e.id}/results`,
      name: `${e.name} results`,
      mimeType: JSON_TYPE,
    },
  ]);
}

/** A refused read: MCP's error, its message the problem's detail and its data the problem whole. */
function problemAsError(answer: ApiAnswer): McpError {
  const body = answer.body as { detail?: string } | null;
  const code = answer.status === 404 ? -32002 : ErrorCode.InvalidRequest;
  return new McpError(code, body?.detail ?? `The API answered ${answer.status}`, answer.body);
}

/** Reads one resource through its route; the results of a collecting experiment read as the collecting problem, which says what is still needed. */
export async function readResource(api: Api, uri: string) {
  const config = CONFIG.exec(uri);
  const results = RESULTS.exec(uri);
  const id = config?.[1] ?? results?.[1];
  if (id === undefined) throw new McpError(ErrorCode.InvalidParams, `No resource ${uri}`);
  const path = `/v1/experiments/${id}${results === null ? '' : '/results'}`;
  const answer = await api({ method: 'GET', path });
  const collecting =
    answer.status === 404 &&
    String((answer.body as { type?: unknown } | null)?.type).endsWith('/results-collecting');
  if (answer.status !== 200 && !collecting) throw problemAsError(answer);
  return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(answer.body, null, 2) }] };
}

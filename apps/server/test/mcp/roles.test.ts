import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestOf } from '../../src/mcp/call-tool.ts';
import { ROUTE_TOOLS, type RouteTool } from '../../src/mcp/tool-catalogue.ts';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';
import { callTool, httpClient, keyHeaders, sessionHeaders } from './mcp-client.ts';

let h: Harness;
let base: string;
let org: Awaited<ReturnType<Harness['org']>>;
let other: Awaited<ReturnType<Harness['org']>>;
const credentials: Record<string, Record<string, string>> = {};
const clients: Record<string, Client> = {};

beforeAll(async () => {
  h = await startHarness();
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  org = await h.org('org_mcp_roles');
  other = await h.org('org_mcp_other');
  for (const role of ['member', 'admin', 'owner']) {
    const token = await h.token({ sub: `${role}-1`, org_id: 'org_mcp_roles', org_role: role });
    credentials[role] = sessionHeaders(token);
  }
  credentials['secret key'] = keyHeaders(org.secret);
  for (const [name, headers] of Object.entries(credentials))
    clients[name] = await httpClient(base, headers);
});

afterAll(async () => {
  for (const client of Object.values(clients)) await client.close();
  await h?.close();
});

/** A running experiment of the org, made by its admin, for one call to act on. */
async function fresh(status: 'draft' | 'running'): Promise<string> {
  return h.experiment(org.admin, { status });
}

/** Each tool's arguments, on experiments of their own, so no call sees another's change. */
async function argsOf(tool: RouteTool): Promise<Record<string, unknown>> {
  switch (tool.name) {
    case 'list_experiments':
      return {};
    case 'create_experiment':
      return { body: experimentConfig() };
    case 'update_experiment':
      return { id: await fresh('running'), body: { description: 'changed by an agent' } };
    case 'get_offline_run':
      return { run_id: '00000000-0000-4000-8000-000000000000' };
    case 'estimate_sample_size':
      return { id: await fresh('running'), metric: 'latency' };
    case 'start_experiment':
    case 'archive_experiment':
      return { id: await fresh('draft') };
    case 'pause_rollout':
    case 'resume_rollout':
      return { id: await fresh('running'), body: {} };
    case 'stop_experiment':
      return { id: await fresh('running'), body: { conclusion: 'rollback' } };
    default:
      return { id: await fresh('running') };
  }
}

/** Refused for the credential (401, 403) or admitted (anything else, a 404 or 409 included). */
const verdict = (status: number) => (status === 401 || status === 403 ? status : 'admitted');

async function routeVerdict(tool: RouteTool, headers: Record<string, string>) {
  const request = requestOf(tool, await argsOf(tool));
  const options: InjectOptions = {
    method: request.method,
    url: request.path,
    headers,
    ...(request.query === undefined ? {} : { query: request.query }),
    ...(request.body === undefined ? {} : { payload: request.body as object }),
  };
  return verdict((await h.app.inject(options)).statusCode);
}

async function toolVerdict(tool: RouteTool, credential: string) {
  const client = clients[credential] as Client;
  const outcome = await callTool(client, tool.name, await argsOf(tool));
  const status = (outcome.body as { status?: number } | null)?.status;
  return outcome.isError && typeof status === 'number' ? verdict(status) : 'admitted';
}

describe("each MCP tool's roles", () => {
  it.each(ROUTE_TOOLS.map((t) => [t.name, t] as const))(
    '%s admits exactly the credentials its route admits',
    async (_name, tool) => {
      const seen: Record<string, unknown> = {};
      const expected: Record<string, unknown> = {};
      for (const credential of Object.keys(credentials)) {
        seen[credential] = await toolVerdict(tool, credential);
        expected[credential] = await routeVerdict(tool, credentials[credential] ?? {});
      }
      expect(seen).toEqual(expected);
      expect(seen.admin).toBe('admitted');
    },
  );

  it('keep the lifecycle to admins and owners, and experiments to sessions', async () => {
    const start = ROUTE_TOOLS.find((t) => t.name === 'start_experiment') as RouteTool;
    expect(await toolVerdict(start, 'member')).toBe(403);
    expect(await toolVerdict(start, 'owner')).toBe('admitted');
    const create = ROUTE_TOOLS.find((t) => t.name === 'create_experiment') as RouteTool;
    expect(await toolVerdict(create, 'member')).toBe('admitted');
    expect(await toolVerdict(create, 'secret key')).toBe(401);
    const runs = ROUTE_TOOLS.find((t) => t.name === 'list_offline_runs') as RouteTool;
    expect(await toolVerdict(runs, 'secret key')).toBe('admitted');
  });
});

describe("another org's experiment", () => {
  it('is unknown to every tool that names one, as to its route', async () => {
    const foreign = await h.experiment(other.admin, { status: 'draft' });
    const agent = clients.admin as Client;
    for (const tool of ROUTE_TOOLS.filter((t) => t.path.includes('{id}'))) {
      const args = { ...(await argsOf(tool)), id: foreign };
      const outcome = await callTool(agent, tool.name, args);
      const request = requestOf(tool, args);
      const route = await h.call(org.admin, {
        method: request.method,
        url: request.path,
        ...(request.query === undefined ? {} : { query: request.query }),
        ...(request.body === undefined ? {} : { payload: request.body as object }),
      });
      expect(route.statusCode, tool.name).toBe(404);
      expect(outcome, tool.name).toEqual({ isError: true, body: route.json() });
    }
    const read = await h.call(other.admin, { method: 'GET', url: `/v1/experiments/${foreign}` });
    expect(read.json().status).toBe('draft');
  });
});

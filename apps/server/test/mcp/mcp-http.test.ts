import { Z_80, Z_975 } from '@arbiter/stats';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_TOOLS } from '../../src/mcp/tool-catalogue.ts';
import TOOL_INPUT_SCHEMAS from '../../src/mcp/tool-schemas.generated.json' with { type: 'json' };
import { ingestAll } from '../support/analysis-data.ts';
import { exposuresForUsers, modelCallsForUsers } from '../support/builders.ts';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';
import { callTool, httpClient, sessionHeaders } from './mcp-client.ts';

let h: Harness;
let base: string;
let org: Awaited<ReturnType<Harness['org']>>;
let agent: Client;

beforeAll(async () => {
  h = await startHarness({ ARBITER_MIN_EVENTS_PER_ARM: '5' });
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  org = await h.org('org_mcp_http');
  agent = await httpClient(base, sessionHeaders(org.admin));
});

afterAll(async () => {
  await agent?.close();
  await h?.close();
});

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  h.call(org.admin, { method, url, ...(payload === undefined ? {} : { payload }) });

describe('the MCP server over Streamable HTTP', () => {
  it('lists every tool with the schema generated from its route and its hints', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual(ROUTE_TOOLS.map((t) => t.name));
    for (const tool of tools) {
      const route = ROUTE_TOOLS.find((t) => t.name === tool.name);
      expect(tool.inputSchema, tool.name).toEqual(
        (TOOL_INPUT_SCHEMAS as Record<string, unknown>)[tool.name],
      );
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(route?.method === 'GET');
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
    }
    const start = tools.find((t) => t.name === 'start_experiment');
    expect(start?.annotations?.destructiveHint).toBe(true);
  });

  it('creates an experiment that the API then reads', async () => {
    const config = experimentConfig({ status: 'draft' });
    const created = await callTool(agent, 'create_experiment', { body: config });
    expect(created.isError).toBe(false);
    const { id, name, status } = created.body as { id: string; name: string; status: string };
    expect([name, status]).toEqual([config.name, 'draft']);
    const read = await api('GET', `/v1/experiments/${id}`);
    expect(read.json()).toEqual(created.body);
  });

  it('answers a bad config with the problem the API gives, pointer and all', async () => {
    const config = experimentConfig({ allocation: [{ variant: 'control', weight: 'half' }] });
    const tool = await callTool(agent, 'create_experiment', { body: config });
    const route = await api('POST', '/v1/experiments', config);
    expect(route.statusCode).toBe(400);
    expect(tool.isError).toBe(true);
    expect(tool.body).toEqual(route.json());
    expect((tool.body as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe(
      '#/allocation/0/weight',
    );
  });

  it('runs an analysis, and reads the results the API reads', async () => {
    const id = await h.experiment(org.admin);
    await ingestAll(h, org.publishable, [
      ...exposuresForUsers(id, 60, { prefix: 'run-x' }),
      ...modelCallsForUsers(id, 60, { prefix: 'run-m' }),
    ]);
    const analysis = await callTool(agent, 'run_analysis', { id });
    expect(analysis.isError).toBe(false);
    const label = (analysis.body as { run_label?: string }).run_label;
    const results = await callTool(agent, 'get_results', { id });
    const route = await api('GET', `/v1/experiments/${id}/results`);
    expect(route.statusCode).toBe(200);
    expect(results).toEqual({ isError: false, body: route.json() });
    expect((results.body as { run_label?: string }).run_label).toBe(label);
  });

  it('reads a collecting experiment as what it still needs, not as a failure', async () => {
    const id = await h.experiment(org.admin);
    const results = await callTool(agent, 'get_results', { id });
    const route = await api('GET', `/v1/experiments/${id}/results`);
    expect(route.statusCode).toBe(404);
    expect(results).toEqual({ isError: false, body: route.json() });
  });

  it('estimates the sample size by the decisions formula', async () => {
    const id = await h.experiment(org.admin);
    const users = 80;
    await ingestAll(h, org.publishable, [
      ...exposuresForUsers(id, users, { prefix: 'size-x' }),
      ...modelCallsForUsers(id, users, { prefix: 'size-m' }),
    ]);
    // Each user's arm as the API assigns it; one call each, latency 100 + i % 50.
    const arms: Record<string, number[]> = { control: [], treatment: [] };
    for (let i = 0; i < users; i++) {
      const res = await h.ingest(org.publishable, {
        method: 'POST',
        url: '/v1/assign',
        payload: { experiment_id: id, user_id: `user-${i}` },
      });
      arms[res.json().variant as string]?.push(100 + (i % 50));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const variance = (xs: number[]) =>
      xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1);
    const mde = 0.02;
    const expected = Math.ceil(
      ((Z_975 + Z_80) ** 2 * (variance(arms.control ?? []) + variance(arms.treatment ?? []))) /
        (mde * mean(arms.control ?? [])) ** 2,
    );
    const tool = await callTool(agent, 'estimate_sample_size', { id, metric: 'latency', mde });
    expect(tool.isError).toBe(false);
    const [estimate] = (tool.body as { estimates: Record<string, unknown>[] }).estimates;
    expect(estimate).toMatchObject({
      treatment: 'treatment',
      mde,
      users_needed_per_arm: expected,
      n_per_arm: { control: arms.control?.length, treatment: arms.treatment?.length },
    });
    expect(typeof (estimate as { days_to_decision?: unknown }).days_to_decision).toBe('number');
  });

  it('refuses an unknown metric with the problem the route gives', async () => {
    const id = await h.experiment(org.admin);
    const tool = await callTool(agent, 'estimate_sample_size', { id, metric: 'nope' });
    const route = await api('GET', `/v1/experiments/${id}/sample-size?metric=nope`);
    expect(route.statusCode).toBe(404);
    expect(tool).toEqual({ isError: true, body: route.json() });
  });

  it('serves each experiment as its config and results resources', async () => {
    const id = await h.experiment(org.admin);
    const { resources } = await agent.listResources();
    expect(resources.map((r) => r.uri)).toContain(`arbiter://experiments/${id}`);
    expect(resources.map((r) => r.uri)).toContain(`arbiter://experiments/${id}/results`);
    const config = await agent.readResource({ uri: `arbiter://experiments/${id}` });
    const text = (config.contents[0] as { text: string }).text;
    expect(JSON.parse(text)).toEqual((await api('GET', `/v1/experiments/${id}`)).json());
    const { resourceTemplates } = await agent.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'arbiter://experiments/{id}',
      'arbiter://experiments/{id}/results',
    ]);
  });

  it('offers the prompt that designs an experiment for a change', async () => {
    const { prompts } = await agent.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['design_experiment']);
    const prompt = await agent.getPrompt({
      name: 'design_experiment',
      arguments: { change: 'A shorter system prompt for the support bot' },
    });
    const text = (prompt.messages[0]?.content as { text?: string } | undefined)?.text ?? '';
    expect(text).toContain('A shorter system prompt for the support bot');
    for (const step of ['Variants', 'direction', 'Guardrails', 'MDE', 'estimate_sample_size'])
      expect(text).toContain(step);
  });

  it('refuses a request without a credential before any tool', async () => {
    const res = await fetch(new URL('/mcp', base), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { type: string }).type).toMatch(/missing-credential$/);
  });

  it('keeps no MCP session: GET and DELETE /mcp are 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(new URL('/mcp', base), {
        method,
        headers: { ...sessionHeaders(org.admin), accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
    }
  });

  it('is not in the OpenAPI document', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths)).not.toContain('/mcp');
    expect(Object.keys(doc.paths)).toContain('/v1/experiments/{id}/sample-size');
  });
});

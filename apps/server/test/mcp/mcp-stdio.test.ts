import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_TOOLS } from '../../src/mcp/tool-catalogue.ts';
import { experimentConfig, type Harness, startHarness } from '../support/harness.ts';
import { ARBITER_BIN, devEnv, runCli } from '../support/process.ts';
import { callTool, connected, httpClient, sessionHeaders } from './mcp-client.ts';

let h: Harness;
let base: string;
let org: Awaited<ReturnType<Harness['org']>>;
let dataDir: string;

beforeAll(async () => {
  h = await startHarness();
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  org = await h.org('org_mcp_stdio');
  dataDir = mkdtempSync(join(tmpdir(), 'arbiter-mcp-'));
});

afterAll(async () => {
  await h?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The SDK's client over stdio to `arbiter mcp --url <the test server>`, spawned from the build. */
function stdioClient(env: Record<string, string>): Promise<Client> {
  return connected(
    new StdioClientTransport({
      command: process.execPath,
      args: [ARBITER_BIN, 'mcp', '--url', base],
      env: { PATH: process.env.PATH ?? '', ...devEnv(dataDir), ...env },
      stderr: 'pipe',
    }),
  );
}

describe('`arbiter mcp` over stdio', () => {
  it('lists the tools of the HTTP endpoint and calls them as the session', async () => {
    const agent = await stdioClient({ ARBITER_SESSION_TOKEN: org.admin });
    const overHttp = await httpClient(base, sessionHeaders(org.admin));
    try {
      const { tools } = await agent.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(ROUTE_TOOLS.map((t) => t.name).sort());
      expect(tools).toEqual((await overHttp.listTools()).tools);
      const config = experimentConfig({ status: 'draft' });
      const created = await callTool(agent, 'create_experiment', { body: config });
      expect(created.isError).toBe(false);
      const id = (created.body as { id: string }).id;
      const read = await h.call(org.admin, { method: 'GET', url: `/v1/experiments/${id}` });
      expect(read.json()).toEqual(created.body);
      const bad = await callTool(agent, 'create_experiment', { body: { ...config, salt: 7 } });
      expect(bad.isError).toBe(true);
      expect((bad.body as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe('#/salt');
    } finally {
      await agent.close();
      await overHttp.close();
    }
  });

  it('takes the secret key from ARBITER_API_KEY, which reaches what it reaches at the API', async () => {
    const agent = await stdioClient({ ARBITER_API_KEY: org.secret });
    try {
      const id = await h.experiment(org.admin);
      const runs = await callTool(agent, 'list_offline_runs', { id });
      expect(runs).toEqual({ isError: false, body: [] });
      const refused = await callTool(agent, 'get_experiment', { id });
      expect(refused.isError).toBe(true);
      expect((refused.body as { status: number }).status).toBe(401);
    } finally {
      await agent.close();
    }
  });

  it('answers a credential the server refuses as an error, not a hang', async () => {
    await expect(stdioClient({ ARBITER_SESSION_TOKEN: 'not-a-token' })).rejects.toThrow(/401/);
  });

  it('refuses to start without a credential, exit 2', () => {
    const result = runCli(['mcp', '--url', base], {
      ...devEnv(dataDir),
      ARBITER_API_KEY: '',
      ARBITER_SESSION_TOKEN: '',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ARBITER_API_KEY/);
  });
});

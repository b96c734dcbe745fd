import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { experimentConfig } from './support/harness.ts';
import { devEnv, runCli, startServer } from './support/process.ts';

describe('the arbiter command on the embedded database', () => {
  it('serves, mints development tokens, and keeps an experiment across a SIGKILL and restart', async () => {
    const env = devEnv(mkdtempSync(join(tmpdir(), 'arbiter-restart-')));
    const first = await startServer(env);
    expect(first.output()).toContain('npx arbiter token --email');
    const token = runCli(
      ['token', '--email', 'dev@example.com', '--org', 'dev-org', '--role', 'admin'],
      env,
    );
    expect(token.code).toBe(0);
    const auth = { authorization: `Bearer ${token.stdout}`, 'content-type': 'application/json' };

    const created = await fetch(`${first.url}/v1/experiments`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(experimentConfig({ name: 'survives-restart' })),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServer(env);
    try {
      const read = await fetch(`${second.url}/v1/experiments/${id}`, { headers: auth });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ id, name: 'survives-restart', version: 1 });
      const who = await fetch(`${second.url}/v1/whoami`, { headers: auth });
      expect(await who.json()).toMatchObject({ role: 'admin', email: 'dev@example.com' });
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  }, 120_000);

  it('refuses to start with a bad setting and names it', async () => {
    const env = { ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-bad-'))), ARBITER_PORT: 'eighty' };
    const result = runCli(['serve'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'arbiter: invalid setting ARBITER_PORT: expected a whole number, got "eighty"\n',
    );
  });

  it('refuses development sessions on a non-loopback host', async () => {
    const env = { ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-bad-'))), ARBITER_HOST: '0.0.0.0' };
    const result = runCli(['serve'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'ARBITER_SESSION_JWKS_URL: required when ARBITER_HOST (0.0.0.0) is not a loopback address',
    );
  });

  it('allows development sessions off loopback for a trial only when asked, with a warning', async () => {
    const env = {
      ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-trial-'))),
      ARBITER_HOST: '0.0.0.0',
      ARBITER_DEV_SESSIONS_OFF_LOOPBACK: 'true',
    };
    const server = await startServer(env);
    try {
      expect(server.output()).toContain(
        'ARBITER_DEV_SESSIONS_OFF_LOOPBACK is on: development sessions are served on 0.0.0.0',
      );
      const port = new URL(server.url).port;
      const signIn = await fetch(`http://127.0.0.1:${port}/v1/dev/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'trial@example.com', org: 'trial', role: 'admin' }),
      });
      expect(signIn.status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  }, 120_000);

  it('token refuses when sessions come from an identity provider', () => {
    const env = {
      ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-idp-'))),
      ARBITER_SESSION_JWKS_URL: 'https://idp.example/jwks.json',
      ARBITER_SESSION_ISSUER: 'https://idp.example',
      ARBITER_SESSION_AUDIENCE: 'https://arbiter.example',
    };
    const result = runCli(['token', '--email', 'a@b.c', '--org', 'o'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('sessions come from your identity provider');
  });

  it('migrate applies migrations and exits', () => {
    const env = devEnv(mkdtempSync(join(tmpdir(), 'arbiter-migrate-')));
    const result = runCli(['migrate'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('migrations applied (pglite)');
  });

  it('pipeline run asks the running server on the embedded database, and opens it itself when none runs', async () => {
    const env = devEnv(mkdtempSync(join(tmpdir(), 'arbiter-pipeline-')));
    const server = await startServer(env);
    try {
      const viaServer = runCli(['pipeline', 'run', '--day', '2026-11-20'], env);
      // Sentences by default, on stdout; nothing on stderr.
      expect(viaServer.code).toBe(0);
      expect(viaServer.stdout).toBe(
        'pipeline ran for 2026-11-20\nno experiments exist yet: create one with POST /v1/experiments',
      );
      expect(viaServer.stderr).toBe('');
      // --json: the run as one JSON document, and nothing else.
      const asJson = runCli(['pipeline', 'run', '--day', '2026-11-20', '--json'], env);
      expect(asJson.code).toBe(0);
      expect(JSON.parse(asJson.stdout)).toEqual({
        day: '2026-11-20',
        ran: true,
        experiments: [],
        skipped: [],
        purged_events: 0,
      });
      expect(asJson.stderr).toBe('');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    const direct = runCli(['pipeline', 'run', '--day', '2026-11-19', '--json'], env);
    expect(direct.code).toBe(0);
    expect(JSON.parse(direct.stdout)).toMatchObject({ day: '2026-11-19', ran: true });
    expect(runCli(['pipeline', 'run', '--day', 'soon'], env).code).toBe(2);
  });
});

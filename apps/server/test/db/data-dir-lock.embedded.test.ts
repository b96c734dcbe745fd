import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startServer } from '../support/process.ts';

/** A bare machine's settings: the embedded database in `dataDir`. */
function devEnv(dataDir: string): Record<string, string> {
  return {
    ARBITER_DATA_DIR: dataDir,
    ARBITER_SESSION_JWKS_URL: '',
    ARBITER_DATABASE_URL: '',
    ARBITER_SECRET_KEY: '',
    ARBITER_SCHEDULER: 'false',
  };
}

function inUse(dataDir: string, pid: number): string {
  return `arbiter: the data dir ${dataDir} is in use by process ${pid}; stop that process or set ARBITER_DATA_DIR to another directory\n`;
}

describe('one process per embedded data dir', () => {
  it('a second serve is refused with one sentence naming the pid and leaves the first server whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-lock-'));
    const env = devEnv(dir);
    const first = await startServer(env);
    const pid = first.child.pid as number;
    try {
      const controlBefore = readFileSync(join(dir, 'server.json'), 'utf8');
      const second = runCli(['serve'], env);
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(inUse(dir, pid));
      // The refused process removed nothing of the first server's.
      expect(readFileSync(join(dir, 'server.json'), 'utf8')).toBe(controlBefore);
      expect(JSON.parse(readFileSync(join(dir, 'arbiter.lock'), 'utf8'))).toEqual({ pid });
      // ... so the command still reaches the running server through its control file.
      const viaServer = runCli(['pipeline', 'run', '--day', '2026-11-20'], env);
      // The run in sentences on stdout, and no failure on stderr.
      expect(viaServer.code).toBe(0);
      expect(viaServer.stdout).toMatch(/^pipeline ran for 2026-11-20\n/);
      expect(viaServer.stderr).toBe('');
      // migrate would open the database too.
      expect(runCli(['migrate'], env)).toMatchObject({ code: 1, stderr: inUse(dir, pid) });
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    }
    // A clean exit leaves neither file behind, and the dir opens again.
    expect(existsSync(join(dir, 'server.json'))).toBe(false);
    expect(existsSync(join(dir, 'arbiter.lock'))).toBe(false);
    expect(runCli(['migrate'], env)).toMatchObject({
      code: 0,
      stdout: 'migrations applied (pglite)',
    });
  }, 120_000);

  it('pipeline run is refused, not crashed, while the server holds the dir but has no control file yet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-lock-'));
    const env = devEnv(dir);
    const server = await startServer(env);
    try {
      // As in the moment between opening the database and listening.
      rmSync(join(dir, 'server.json'));
      const run = runCli(['pipeline', 'run', '--day', '2026-11-20'], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(inUse(dir, server.child.pid as number));
      expect(run.stdout).toBe('');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  }, 120_000);

  it('a lock left by a killed process is stale and taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-lock-'));
    mkdirSync(dir, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(join(dir, 'arbiter.lock'), JSON.stringify({ pid: Number(gone.stdout) }));
    const result = runCli(['migrate'], devEnv(dir));
    expect(result).toMatchObject({ code: 0, stdout: 'migrations applied (pglite)' });
    expect(existsSync(join(dir, 'arbiter.lock'))).toBe(false);
  }, 60_000);
});

describe('CLI failures are one sentence', () => {
  it('a port in use (EADDRINUSE) names the port and what to do, and releases the data dir', async () => {
    const first = await startServer(devEnv(mkdtempSync(join(tmpdir(), 'arbiter-port-'))));
    const port = new URL(first.url).port;
    try {
      const dir = mkdtempSync(join(tmpdir(), 'arbiter-port-'));
      const second = runCli(['serve'], { ...devEnv(dir), ARBITER_PORT: port });
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(
        `arbiter: port ${port} on 127.0.0.1 is already in use; set ARBITER_PORT to a free port (0 picks one)\n`,
      );
      expect(existsSync(join(dir, 'arbiter.lock'))).toBe(false);
      expect(existsSync(join(dir, 'server.json'))).toBe(false);
    } finally {
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    }
  }, 120_000);

  it('an unreachable PostgreSQL server is one line, not a stack', () => {
    const result = runCli(['migrate'], {
      ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-pg-'))),
      // The discard port: nothing listens on it on this machine.
      ARBITER_DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^arbiter: migrate could not reach 127\.0\.0\.1:9 \(connection refused\); check ARBITER_DATABASE_URL\n$/,
    );
  }, 60_000);
});

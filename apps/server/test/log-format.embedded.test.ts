import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARBITER_BIN, devEnv } from './support/process.ts';

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The built `arbiter serve` at `info`, its stdout a pipe or, through util-linux `script`, a
 * pseudo-terminal. It answers `requests`, then is stopped by SIGTERM (its pid from the control
 * file, as `script` stands between); resolves with what it wrote to stdout, colours taken out.
 */
async function serveAndRequest(
  terminal: boolean,
  env: Record<string, string>,
  requests: string[],
): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-logs-'));
  const command = `${quoted(process.execPath)} ${quoted(ARBITER_BIN)} serve`;
  const child = spawn(
    terminal ? 'script' : process.execPath,
    terminal ? ['-qfec', command, '/dev/null'] : [ARBITER_BIN, 'serve'],
    {
      env: {
        ...process.env,
        ...devEnv(dataDir),
        ARBITER_PORT: '0',
        ARBITER_LOG_LEVEL: 'info',
        ARBITER_SHUTDOWN_DELAY_SECONDS: '0',
        ARBITER_LOG_FORMAT: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  const exited = new Promise((resolve) => child.once('close', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Arbiter is running at (http:\/\/\S+)/.exec(out.replace(ANSI, ''));
      if (match) resolve(match[1] as string);
    });
    void exited.then(() => reject(new Error(`arbiter serve ended:\n${out}`)));
  });
  for (const path of requests) await (await fetch(`${url}${path}`)).arrayBuffer();
  const { pid } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid: number };
  process.kill(pid, 'SIGTERM');
  await exited;
  return out.replace(ANSI, '').replace(/\r/g, '');
}

/** The log's lines: stdout less the start banner (its first line and the indented ones after). */
function logLines(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('Arbiter is running at') && !l.startsWith('  '));
}

const REQUESTS = ['/v1/whoami?token=do-not-log-me', '/healthz', '/readyz', '/metrics'];

describe('the server log', () => {
  it('is JSON lines when stdout is a pipe: one line per request, none for a probe, no query string', async () => {
    const out = await serveAndRequest(false, {}, REQUESTS);
    const entries = logLines(out).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((e) => e.msg)).toContain('shut down');
    const requestLines = entries.filter((e) => 'statusCode' in e || 'req' in e || 'res' in e);
    expect(requestLines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: expect.stringMatching(/^GET \/v1\/whoami 401 [\d.]+ ms$/),
        method: 'GET',
        path: '/v1/whoami',
        statusCode: 401,
      }),
    ]);
    expect(out).not.toContain('do-not-log-me');
    expect(out).not.toMatch(/GET \/(healthz|readyz|metrics)/);
    expect(out).not.toContain('incoming request');
  }, 120_000);

  it('is short readable lines on a terminal, with the message and no JSON', async () => {
    const out = await serveAndRequest(true, {}, REQUESTS);
    const lines = logLines(out);
    const request = lines.filter((l) => l.includes('/v1/whoami'));
    expect(request).toHaveLength(1);
    expect(request[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/v1\/whoami 401 [\d.]+ ms/);
    expect(lines.some((l) => /INFO: shut down$/.test(l))).toBe(true);
    for (const line of lines) expect(() => JSON.parse(line), line).toThrow();
    expect(out).not.toContain('do-not-log-me');
    expect(out).not.toMatch(/GET \/(healthz|readyz|metrics)/);
  }, 120_000);

  it('follows ARBITER_LOG_FORMAT over the terminal test, either way', async () => {
    const jsonOnTerminal = await serveAndRequest(true, { ARBITER_LOG_FORMAT: 'json' }, REQUESTS);
    const entries = logLines(jsonOnTerminal).map((l) => JSON.parse(l) as { msg: string });
    expect(entries.filter((e) => e.msg.startsWith('GET /v1/whoami'))).toHaveLength(1);
    const prettyPiped = await serveAndRequest(false, { ARBITER_LOG_FORMAT: 'pretty' }, REQUESTS);
    const lines = logLines(prettyPiped);
    expect(lines.filter((l) => / INFO: GET \/v1\/whoami 401 /.test(l))).toHaveLength(1);
    for (const line of lines) expect(() => JSON.parse(line), line).toThrow();
  }, 120_000);
});

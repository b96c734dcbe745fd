import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ARBITER_BIN = fileURLToPath(new URL('../../bin/arbiter.js', import.meta.url));

export interface RunningServer {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Starts `arbiter serve` as its own process and resolves once it prints its URL. `bin` is
 * another build's `arbiter` (a benchmark's reference).
 */
export function startServer(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
  bin = ARBITER_BIN,
): Promise<RunningServer> {
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], {
    env: { ...process.env, ARBITER_PORT: '0', ARBITER_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Arbiter is running at (http:\/\/\S+)/.exec(output);
      if (match) resolve({ url: match[1] as string, child, output: () => output, exited });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`arbiter serve exited with ${code}:\n${output}`)));
  });
}

/** Runs one `arbiter` command to its end; one that never ends (a serve that should have been refused) is killed after a minute. */
export function runCli(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, [ARBITER_BIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

/**
 * Runs one `arbiter` command without blocking this process's event loop, so the test can keep
 * talking to a server meanwhile (runCli waits synchronously).
 */
export function runCliAsync(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [ARBITER_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, stdout: stdout.trim(), stderr })),
  );
}

/** Only the variables a bare machine would have: no test JWKS, the embedded database. */
export function devEnv(dataDir: string): Record<string, string> {
  return {
    ARBITER_DATA_DIR: dataDir,
    ARBITER_SESSION_JWKS_URL: '',
    ARBITER_DATABASE_URL: '',
    ARBITER_SECRET_KEY: '',
  };
}

/** A TCP port on 127.0.0.1 that was free a moment ago, for a process the test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../../apps/server/bin/arbiter.js', import.meta.url));

/** The real server (`arbiter serve`) on an embedded database of its own, as a child process. */
export class RealServer {
  url = '';
  readonly #dataDir = mkdtempSync(join(tmpdir(), 'arbiter-openfeature-'));
  readonly #env: NodeJS.ProcessEnv;
  #child: ChildProcess | null = null;

  constructor() {
    this.#env = {
      ...process.env,
      ARBITER_PORT: '0',
      ARBITER_DATA_DIR: this.#dataDir,
      ARBITER_SESSION_JWKS_URL: '',
      ARBITER_DATABASE_URL: '',
      ARBITER_SECRET_KEY: '',
      ARBITER_LOG_LEVEL: 'warn',
      // 10,000 users are assigned through POST /v1/assign.
      ARBITER_RATE_LIMIT_SECRET_PER_MINUTE: '10000000',
      ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE: '10000000',
    };
  }

  /** Starts the server; started again after `stop`, it listens on the same port. */
  start(): Promise<this> {
    const port = this.url === '' ? '0' : new URL(this.url).port;
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...this.#env, ARBITER_PORT: port },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    let output = '';
    return new Promise((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /Arbiter is running at (http:\/\/\S+)/.exec(output);
        if (match) {
          this.url = match[1] as string;
          child.stdout?.off('data', onData);
          child.stderr?.off('data', onData);
          child.stdout?.resume();
          child.stderr?.resume();
          resolve(this);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`arbiter serve exited ${code}:\n${output}`)));
    });
  }

  /** Ends the process and waits for it. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (child !== null && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }

  /** Stops the server and removes its data. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.#dataDir, { recursive: true, force: true });
  }

  /** A new org: a dashboard session and both keys. */
  async newOrg(): Promise<Org> {
    const org = `org-${randomUUID().slice(0, 8)}`;
    const token = spawnSync(
      process.execPath,
      [BIN, 'token', '--email', `admin@${org}.test`, '--org', org, '--role', 'admin'],
      { env: this.#env, encoding: 'utf8' },
    ).stdout.trim();
    const session = new Api(this.url, { authorization: `Bearer ${token}` });
    const keys: Record<string, string> = {};
    for (const scope of ['publishable', 'secret']) {
      const { status, body } = await session.call('POST', '/v1/keys', { scope });
      if (status !== 201) throw new Error(`key: ${status} ${JSON.stringify(body)}`);
      keys[scope] = (body as { key: string }).key;
    }
    return {
      session,
      publishable: keys.publishable as string,
      secret: keys.secret as string,
      api: new Api(this.url, { 'x-api-key': keys.secret as string }),
    };
  }
}

export interface Org {
  session: Api;
  publishable: string;
  secret: string;
  /** The API with the secret key. */
  api: Api;
}

/** A parsed JSON answer: the tests read the fields they know. */
// biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of its own answer.
export type Json = any;

export class Api {
  constructor(
    readonly url: string,
    readonly headers: Record<string, string>,
  ) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json }> {
    const res = await fetch(this.url + path, {
      method,
      headers: {
        ...this.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }
}

/** A valid experiment config (apps/server/test/support/harness.ts `experimentConfig`). */
export function experimentConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'of-exp',
    salt: 'salt-1',
    bucket_count: 1000,
    allocation: [
      { variant: 'control', weight: 50 },
      { variant: 'treatment', weight: 50 },
    ],
    variants: [
      { key: 'control', prompt: 'You are helpful.', variables: { temperature: 0.7 } },
      { key: 'treatment', prompt: 'Be concise.', variables: { temperature: 0.2 } },
    ],
    metrics: [
      {
        name: 'checkout',
        kind: 'conversion',
        category: 'primary',
        method_default: 'two_proportion_z',
        metric_version: 1,
        shared_org_wide: true,
      },
    ],
    ...overrides,
  };
}

export async function createExperiment(
  org: Org,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; [field: string]: unknown }> {
  const { status, body } = await org.session.call(
    'POST',
    '/v1/experiments',
    experimentConfig(overrides),
  );
  if (status !== 201) throw new Error(`experiment: ${status} ${JSON.stringify(body)}`);
  return body as { id: string };
}

/** Polls `check` until it holds (each try a tick apart); fails with `what` after many tries. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../apps/server/test/support/process.ts';

/**
 * The image scripts/test-suites/container.sh built (ARBITER_IMAGE), run as docs/deploy.md says.
 * The commands of that page are made here by functions of the names they use: the page's names
 * give the page's text (checked below), the suite's own names give what runs, so the page
 * cannot drift from what is tested.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPLOY = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
const IMAGE = required('ARBITER_IMAGE');
const BASE_IMAGE = required('ARBITER_BASE_IMAGE');
const DATABASE_URL = required('ARBITER_CONTAINER_DATABASE_URL');
const COMPOSE = required('ARBITER_COMPOSE');
/** The uid the Containerfile gives the server. */
const UID = 10001;
/** The size bound: what the image may add to its base. */
const MAX_ADDED_BYTES = 275 * 1000 * 1000;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run scripts/test-suites/container.sh`);
  return value;
}

interface Names {
  image: string;
  name: string;
  port: string;
  volume: string;
}
const PAGE: Names = { image: 'arbiter', name: 'arbiter', port: '8080', volume: 'arbiter-data' };
const suffix = randomBytes(4).toString('hex');

/** docs/deploy.md: a local trial on the embedded database, data on a named volume. */
const runEmbedded = (n: Names) => [
  'run',
  '-d',
  '--name',
  n.name,
  '--read-only',
  '-p',
  `${n.port}:8080`,
  '-v',
  `${n.volume}:/data`,
  '-e',
  'ARBITER_DEV_SESSIONS_OFF_LOOPBACK=true',
  n.image,
];
const demo = (n: Names) => ['exec', n.name, 'arbiter', 'demo'];
const token = (n: Names, org: string, email: string) => [
  'exec',
  n.name,
  'arbiter',
  'token',
  '--email',
  email,
  '--org',
  org,
  '--role',
  'admin',
];
const healthcheck = (n: Names) => ['healthcheck', 'run', n.name];
const stop = (n: Names) => ['stop', n.name];
const remove = (n: Names) => ['rm', n.name];
const composeConfig = ['-f', 'compose.yaml', '--env-file', '.env.example', 'config'];

function podman(args: string[]) {
  const result = spawnSync('podman', args, { encoding: 'utf8', cwd: ROOT });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr };
}

/** What the container wrote to stdout and stderr. */
function logsOf(name: string): string {
  const result = podman(['logs', name]);
  return `${result.stdout}\n${result.stderr}`;
}

function ok(args: string[]): string {
  const result = podman(args);
  expect(result.code, `podman ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Polls until the server answers its OpenAPI document (a bounded number of tries, not a time). */
async function openapiOf(url: string, name: string): Promise<Response> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const res = await fetch(`${url}/v1/openapi.json`).catch(() => null);
    if (res?.ok) return res;
    const state = podman(['inspect', '--format', '{{.State.Status}}', name]).stdout;
    if (state !== 'running') throw new Error(`${name} is ${state}:\n${logsOf(name)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${name} never answered:\n${logsOf(name)}`);
}

const made = { containers: [] as string[], volumes: [] as string[], dirs: [] as string[] };

afterAll(() => {
  for (const name of made.containers) podman(['rm', '--force', '--time', '0', name]);
  for (const volume of made.volumes) podman(['volume', 'rm', '--force', volume]);
  for (const dir of made.dirs) rmSync(dir, { recursive: true, force: true });
});

describe('docs/deploy.md', () => {
  it('shows the commands this suite runs, with its own names', () => {
    for (const args of [
      runEmbedded(PAGE),
      demo(PAGE),
      token(PAGE, 'my-org', 'you@example.com'),
      healthcheck(PAGE),
      stop(PAGE),
      remove(PAGE),
    ])
      expect(DEPLOY).toContain(`podman ${args.join(' ')}`);
    expect(DEPLOY).toContain(`podman-compose ${composeConfig.join(' ')}`);
    // container.sh builds the same way, on the local base image (NODE_IMAGE).
    expect(DEPLOY).toContain('podman build --format docker -t arbiter .');
    expect(readFileSync(join(ROOT, 'scripts', 'test-suites', 'container.sh'), 'utf8')).toContain(
      'podman build --quiet --format docker --build-arg NODE_IMAGE="$base"',
    );
  });

  it('states the image size this suite measures', () => {
    const added = addedBytes();
    const stated = /adds (\d+) MB to its base/.exec(DEPLOY);
    expect(stated, 'a sentence "adds N MB to its base"').not.toBeNull();
    // Rounded to whole MB; a later change of a few MB asks for the page to be updated.
    expect(Math.abs(Number(stated?.[1]) - added / 1e6)).toBeLessThan(10);
  });
});

function addedBytes(): number {
  const size = (image: string) => Number(ok(['image', 'inspect', '--format', '{{.Size}}', image]));
  return size(IMAGE) - size(BASE_IMAGE);
}

describe('the image', () => {
  it(`adds at most ${MAX_ADDED_BYTES / 1e6} MB to its base`, () => {
    const added = addedBytes();
    process.stdout.write(`image adds ${(added / 1e6).toFixed(1)} MB to its base\n`);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(MAX_ADDED_BYTES);
  });

  it('carries the OCI labels, a health check, a non-root user and the data volume', () => {
    const config = JSON.parse(ok(['image', 'inspect', IMAGE]))[0];
    expect(config.Labels).toMatchObject({
      'org.opencontainers.image.version': '0.1.0',
      'org.opencontainers.image.licenses': 'Apache-2.0',
    });
    expect(config.Labels).toHaveProperty('org.opencontainers.image.source');
    expect(config.Config.User).toBe(`${UID}:${UID}`);
    expect(Object.keys(config.Config.Volumes)).toEqual(['/data']);
    expect(Object.keys(config.Config.ExposedPorts)).toEqual(['8080/tcp']);
    expect(config.Config.Env).toEqual(
      expect.arrayContaining(['ARBITER_DATA_DIR=/data', 'ARBITER_HOST=0.0.0.0']),
    );
    // podman shows the image's health check beside its config, docker inside it.
    expect(JSON.stringify(config.Healthcheck ?? config.Config.Healthcheck)).toContain('/healthz');
  });

  it('holds no client toolchain and no development package', () => {
    const found = podman([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'command -v mvn java python3 go curl; ls /app/node_modules/vitest /app/node_modules/typescript /app/node_modules/vite 2>/dev/null; true',
    ]);
    expect(found.code).toBe(0);
    expect(found.stdout).toBe('');
  });
});

describe('on the embedded database, with a named volume and a read-only root filesystem', () => {
  let names: Names;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    names = {
      image: IMAGE,
      name: `arbiter-suite-${suffix}`,
      port: String(port),
      volume: `arbiter-suite-${suffix}`,
    };
    made.volumes.push(names.volume);
    made.containers.push(names.name);
    ok(runEmbedded(names));
    url = `http://127.0.0.1:${port}`;
    await openapiOf(url, names.name);
  });

  it('answers /v1/openapi.json through the published port', async () => {
    const res = await fetch(`${url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { openapi: string }).openapi).toMatch(/^3\./);
  });

  it('runs its process as the non-root uid', () => {
    const pid = ok(['inspect', '--format', '{{.State.Pid}}', names.name]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(String(UID));
    expect(ok(['exec', names.name, 'id', '-u'])).toBe(String(UID));
  });

  it('warns at start that development sessions are served off loopback', () => {
    expect(logsOf(names.name)).toContain('ARBITER_DEV_SESSIONS_OFF_LOOPBACK is on');
  });

  it('writes nowhere but /data and /tmp', () => {
    expect(podman(['exec', names.name, 'touch', '/app/written']).code).not.toBe(0);
    expect(podman(['exec', names.name, 'touch', '/tmp/written']).code).toBe(0);
  });

  it('reports healthy from its health check', () => {
    expect(podman(healthcheck(names)).code).toBe(0);
    const state = JSON.parse(ok(['inspect', '--format', '{{json .State}}', names.name]));
    expect((state.Health ?? state.Healthcheck).Status).toBe('healthy');
  });

  it('runs `arbiter demo` inside', () => {
    const out = ok(demo(names));
    expect(out).toContain('Arbiter demo: org arbiter-demo');
    expect(out).toContain('/v1/experiments/');
  });

  it('stops on SIGTERM gracefully, with exit status 0', () => {
    ok(stop(names));
    const logs = logsOf(names.name);
    // Exit 0 is the server's own graceful end: a kill after podman's timeout exits 137. The
    // log's tail says what the shutdown was waiting for when it is not 0.
    expect(
      ok(['inspect', '--format', '{{.State.ExitCode}}', names.name]),
      logs.split('\n').slice(-40).join('\n'),
    ).toBe('0');
    expect(logs).toContain('"msg":"shut down"');
  });

  it('keeps the demo on the volume: a new container finds its experiments and results', async () => {
    ok(remove(names));
    ok(runEmbedded(names));
    await openapiOf(url, names.name);
    const bearer = ok(token(names, 'arbiter-demo', 'demo@example.com'));
    const headers = { authorization: `Bearer ${bearer}` };
    const list = await fetch(`${url}/v1/experiments`, { headers });
    expect(list.status).toBe(200);
    const body = JSON.stringify(await list.json());
    const names_ = [...body.matchAll(/"name":"([a-z0-9-]+)"/g)].map((m) => m[1]);
    expect(names_.length).toBeGreaterThanOrEqual(2);
    const withResults = [];
    for (const name of new Set(names_)) {
      const res = await fetch(`${url}/v1/experiments/${name}/results`, { headers });
      if (res.status === 200) withResults.push(name);
    }
    expect(withResults.length).toBeGreaterThanOrEqual(1);
    ok(stop(names));
    expect(ok(['inspect', '--format', '{{.State.ExitCode}}', names.name])).toBe('0');
  });
});

describe('on a PostgreSQL server (host network)', () => {
  let run: { status: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    const port = await freePort();
    const name = `arbiter-suite-pg-${suffix}`;
    // The data dir is a host folder here, so the quickstart's `npx arbiter token` on this machine
    // signs with the development key the container made.
    const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-container-data-'));
    chownSync(dataDir, UID, UID);
    made.dirs.push(dataDir);
    made.containers.push(name);
    const secretKey = randomBytes(32).toString('hex');
    ok([
      'run',
      '-d',
      '--name',
      name,
      '--read-only',
      '--network',
      'host',
      '-v',
      `${dataDir}:/data`,
      '-e',
      'ARBITER_HOST=127.0.0.1',
      '-e',
      `ARBITER_PORT=${port}`,
      '-e',
      `ARBITER_DATABASE_URL=${DATABASE_URL}`,
      '-e',
      `ARBITER_SECRET_KEY=${secretKey}`,
      IMAGE,
    ]);
    const url = `http://127.0.0.1:${port}`;
    await openapiOf(url, name);
    // The development key is the container's (uid 10001), made here if its start did not.
    ok(['exec', name, 'arbiter', 'token', '--email', 'you@example.com', '--org', 'my-org']);

    // docs/quickstart.md, its `sh` blocks in order, as apps/server/test/quickstart.embedded.test.ts runs
    // them, against the container; but for the blocks that run the Python and Java programs on
    // the packed artifacts (`dist/packages/`): those clients are that test's, on the same API.
    const page = readFileSync(join(ROOT, 'docs', 'quickstart.md'), 'utf8');
    const blocks = [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
      .map((m) => m[1] as string)
      .filter((block) => !block.includes('dist/packages/'));
    expect(blocks.length).toBeGreaterThan(10);
    const script = ['set -euo pipefail', ...blocks].join('\n');
    expect(script).toContain('ARBITER=http://localhost:8080');
    const workDir = mkdtempSync(join(ROOT, 'node_modules', '.quickstart-container-'));
    made.dirs.push(workDir);
    const result = spawnSync(
      'bash',
      ['-c', script.replace('ARBITER=http://localhost:8080', `ARBITER=${url}`)],
      {
        cwd: workDir,
        env: {
          ...process.env,
          ARBITER_DATA_DIR: dataDir,
          ARBITER_DATABASE_URL: DATABASE_URL,
          ARBITER_SECRET_KEY: secretKey,
          ARBITER_SESSION_JWKS_URL: '',
        },
        encoding: 'utf8',
      },
    );
    run = { status: result.status, stdout: result.stdout, stderr: result.stderr };
  });

  it("runs the quickstart's API calls against it", () => {
    expect(run.stderr.split('\n').filter((l) => l.includes('curl:'))).toEqual([]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('"events":2,"errors":[{"line":4,');
    expect(run.stdout).toContain('"status":"collecting"');
    expect(run.stdout).toMatch(/"preliminary":true/);
  });
});

describe('compose.yaml', () => {
  it('is valid for podman-compose with the settings of .env.example', () => {
    const result = spawnSync(COMPOSE, composeConfig, { encoding: 'utf8', cwd: ROOT });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('condition: service_healthy');
    expect(result.stdout).toContain('postgres:15');
    expect(result.stdout).toMatch(/arbiter-data:\/data/);
    expect(result.stdout).toMatch(/postgres-data:\/var\/lib\/postgresql\/data/);
  });

  it('refuses to start without the required settings', () => {
    const result = spawnSync(COMPOSE, ['-f', 'compose.yaml', '--env-file', '/dev/null', 'config'], {
      encoding: 'utf8',
      cwd: ROOT,
      env: { PATH: process.env.PATH, CONTAINERS_CONF: process.env.CONTAINERS_CONF },
    });
    expect(result.status).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('set POSTGRES_USER in .env');
  });

  it('names every setting it passes in .env.example', () => {
    const compose = readFileSync(join(ROOT, 'compose.yaml'), 'utf8');
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const used = new Set([...compose.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1] as string));
    const named = new Set([...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1] as string));
    expect([...used].filter((v) => !named.has(v))).toEqual([]);
  });
});

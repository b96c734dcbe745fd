import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devEnv, type RunningServer, runCli, startServer } from './support/process.ts';

/**
 * docs/quickstart.md cannot rot: every `sh` block of it runs, in order, in one bash session
 * against a fresh embedded server, with `set -euo pipefail` (the page's `curl --fail-with-body`
 * stops the run at the first refused request).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PAGE = join(ROOT, 'docs', 'quickstart.md');
const DEFAULT_ADDRESS = 'ARBITER=http://localhost:8080';

function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

let env: Record<string, string>;
let server: RunningServer;
let workDir: string;
let run: { status: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  env = devEnv(mkdtempSync(join(tmpdir(), 'arbiter-quickstart-')));
  server = await startServer(env);
  // Inside the repository's node_modules, so `npx arbiter` and `import '@arbiter/client'`
  // resolve as they do at the repository root, without leaving files in the work tree.
  workDir = mkdtempSync(join(ROOT, 'node_modules', '.quickstart-'));
  const blocks = shellBlocks(readFileSync(PAGE, 'utf8'));
  const script = ['set -euo pipefail', ...blocks].join('\n');
  expect(script).toContain(DEFAULT_ADDRESS);
  const result = spawnSync(
    'bash',
    ['-c', script.replace(DEFAULT_ADDRESS, `ARBITER=${server.url}`)],
    {
      cwd: workDir,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  run = { status: result.status, stdout: result.stdout, stderr: result.stderr };
}, 180_000);

afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  server.child.kill('SIGTERM');
  await server.exited;
});

describe('docs/quickstart.md', () => {
  it('has the steps a newcomer needs, each as a runnable block', () => {
    const blocks = shellBlocks(readFileSync(PAGE, 'utf8')).join('\n');
    for (const step of [
      'npx arbiter token',
      'POST "$ARBITER/v1/experiments"',
      '/v1/keys',
      '/v1/config',
      '/v1/assign',
      "from '@arbiter/client'",
      '/v1/events"',
      '/v1/events/import',
      '/test-event',
      '/live',
      'npx arbiter pipeline run',
      '/results',
      '/analyze',
    ])
      expect(blocks).toContain(step);
  });

  it('runs from start to end against a fresh server', () => {
    expect(run.stderr.split('\n').filter((l) => l.includes('curl:'))).toEqual([]);
    expect(run.status).toBe(0);
  });

  it('gives the answers the page promises', () => {
    expect(run.stdout).toContain('"events":2,"errors":[{"line":4,');
    expect(run.stdout).toContain('"type":"/problems/results-collecting"');
    expect(run.stdout).toContain('"setting":"ARBITER_MIN_EVENTS_PER_ARM"');
    expect(run.stdout).toMatch(/"preliminary":true/);
    expect(run.stdout).toContain('"status":"collecting"');
    expect(run.stdout).toMatch(/ \d+ collecting: .*checkout-prompt/);
    expect(run.stdout).toMatch(/ts-user-0 (control|concise) "/);
  });

  it('leaves the events it sent in the experiment: ten client users, the HTTP, import and test events', async () => {
    const token = runCli(
      ['token', '--email', 'you@example.com', '--org', 'my-org', '--role', 'admin'],
      env,
    ).stdout;
    let exposures = 0;
    for (let attempt = 0; attempt < 100 && exposures < 13; attempt++) {
      const res = await fetch(`${server.url}/v1/experiments/checkout-prompt/live`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const live = (await res.json()) as { arms: Record<string, { exposures: number }> };
      exposures = Object.values(live.arms).reduce((sum, arm) => sum + arm.exposures, 0);
      if (exposures < 13) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(exposures).toBe(13);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run pack` makes the tarball the client README tells people to install until the package
 * is published: installed into an empty project, it must load in both module systems and carry
 * the licence. Packed and installed once for the file; each test reads what was installed.
 */
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'arbiter-pack-'));
const project = mkdtempSync(join(tmpdir(), 'arbiter-pack-user-'));
const installed = join(project, 'node_modules/@arbiter/client');
let printed = '';

beforeAll(() => {
  printed = execFileSync('bash', ['scripts/pack.sh', 'typescript'], {
    cwd: repo,
    env: { ...process.env, PACK_OUT: out },
    encoding: 'utf8',
  });
  writeFileSync(join(project, 'package.json'), '{"name":"user-app","private":true}');
  execFileSync(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', join(out, 'arbiter-client-0.1.0.tgz')],
    { cwd: project, stdio: 'ignore' },
  );
});

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

describe('npm run pack', () => {
  it('makes an npm tarball that installs without a registry and loads as ESM and CommonJS', () => {
    expect(readdirSync(out)).toEqual(['arbiter-client-0.1.0.tgz']);
    expect(printed).toBe(`packed:\n  ${join(out, 'arbiter-client-0.1.0.tgz')}\n`);
    const probe = (args: string[], script: string) =>
      execFileSync(process.execPath, [...args, '-e', script], {
        cwd: project,
        encoding: 'utf8',
      }).trim();
    expect(
      probe(
        ['--input-type=module'],
        "import { Arbiter } from '@arbiter/client'; console.log(typeof Arbiter)",
      ),
    ).toBe('function');
    expect(probe([], "console.log(typeof require('@arbiter/client').Arbiter)")).toBe('function');
  });

  it('carries the framework integrations at their subpaths, ESM and CommonJS', () => {
    const probe = (args: string[], script: string) =>
      execFileSync(process.execPath, [...args, '-e', script], {
        cwd: project,
        encoding: 'utf8',
      }).trim();
    expect(
      probe(
        ['--input-type=module'],
        "import { arbiterMiddleware } from '@arbiter/client/ai-sdk'; import { ArbiterCallbackHandler } from '@arbiter/client/langchain'; console.log(typeof arbiterMiddleware, typeof ArbiterCallbackHandler)",
      ),
    ).toBe('function function');
    expect(
      probe(
        [],
        "console.log(typeof require('@arbiter/client/ai-sdk').arbiterMiddleware, typeof require('@arbiter/client/langchain').ArbiterCallbackHandler)",
      ),
    ).toBe('function function');
  });

  it('carries the repository licence text beside its Apache-2.0 metadata', () => {
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(pkg.license).toBe('Apache-2.0');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(repo, 'LICENSE'), 'utf8'),
    );
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A documentation page whose blocks run, in order, against a fresh server: `sh` blocks in one
 * bash session with `set -euo pipefail`, Python and Java programs saved first under the file
 * names their first lines give. The client libraries are the artifacts `npm run pack` builds;
 * the page's `dist/packages/` is that folder, and the TypeScript client is the packed tarball,
 * installed where the page's scripts import it.
 */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const DEFAULT_ADDRESS = 'ARBITER=http://localhost:8080';
export const PAGE_PACKAGES = 'dist/packages/';

export interface Block {
  lang: string;
  code: string;
}

export function blocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] as string,
    code: m[2] as string,
  }));
}

/** A program block's file name: its first line, a comment (`# name.py`, `// Name.java`). */
export function fileNameOf(block: Block): string {
  const found = /^(?:#|\/\/) ([\w.-]+)\n/.exec(block.code);
  if (!found) throw new Error(`a ${block.lang} block must name its file on its first line`);
  return found[1] as string;
}

export interface Packages {
  dir: string;
  own: boolean;
}

/**
 * The client libraries as `npm run pack` builds them. The test command packs them once, before
 * both server passes and beside nothing that writes clients/java/target, and passes the folder
 * in ARBITER_QUICKSTART_PACKAGES; alone, a test file packs them into a folder of its own.
 */
export function packages(): Packages {
  const given = process.env.ARBITER_QUICKSTART_PACKAGES;
  if (given) return { dir: given, own: false };
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-quickstart-pack-'));
  execFileSync('bash', [join(ROOT, 'scripts', 'pack.sh')], {
    env: { ...process.env, PACK_OUT: dir },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { dir, own: true };
}

/** The version clients/java/pom.xml builds (the project's own `<version>`, after its parent-less header). */
export function javaVersion(): string {
  const pom = readFileSync(join(ROOT, 'clients', 'java', 'pom.xml'), 'utf8');
  const found = /<artifactId>arbiter-client<\/artifactId>\s*<version>([^<]+)<\/version>/.exec(pom);
  if (!found) throw new Error('clients/java/pom.xml names no version after its artifactId');
  return found[1] as string;
}

/**
 * A work folder inside the repository's node_modules, so `npx arbiter` resolves as it does at
 * the repository root, without leaving files in the work tree; the packed client is installed
 * in the folder's own node_modules, which Node searches before the workspace's @arbiter/client.
 */
export function workFolderWithPackedClient(prefix: string, packed: Packages): string {
  const workDir = mkdtempSync(join(ROOT, 'node_modules', prefix));
  const tarball = readdirSync(packed.dir).find((f) => /^arbiter-client-.*\.tgz$/.test(f));
  if (!tarball) throw new Error(`no @arbiter/client tarball in ${packed.dir}`);
  mkdirSync(join(workDir, 'node_modules', '@arbiter'), { recursive: true });
  execFileSync('tar', ['-xzf', join(packed.dir, tarball), '-C', join(workDir, 'node_modules')]);
  rmSync(join(workDir, 'node_modules', '@arbiter', 'client'), { recursive: true, force: true });
  execFileSync('mv', [
    join(workDir, 'node_modules', 'package'),
    join(workDir, 'node_modules', '@arbiter', 'client'),
  ]);
  return workDir;
}

export interface PageRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Saves the page's programs in workDir and runs its `sh` blocks there, against serverUrl. */
export function runPage(
  page: Block[],
  options: { workDir: string; serverUrl: string; packed: Packages; env: Record<string, string> },
): PageRun {
  for (const block of page.filter((b) => b.lang === 'python' || b.lang === 'java'))
    writeFileSync(join(options.workDir, fileNameOf(block)), block.code);
  const script = ['set -euo pipefail', ...page.filter((b) => b.lang === 'sh').map((b) => b.code)]
    .join('\n')
    .replace(DEFAULT_ADDRESS, `ARBITER=${options.serverUrl}`)
    .replaceAll(PAGE_PACKAGES, `${options.packed.dir}/`);
  const result = spawnSync('bash', ['-c', script], {
    cwd: options.workDir,
    env: { ...process.env, ...options.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A package folder holding package.json and the freshly built dist/. */
    packageRoot: string;
  }
}

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Builds the published bundles once per run, into a temporary package folder, so that the
 * package and browser tests exercise what `npm publish` would ship and never touch dist/.
 */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-client-pkg-'));
  execFileSync(
    join(packageDir, '../../node_modules/.bin/tsup'),
    ['--out-dir', join(root, 'dist'), '--silent'],
    { cwd: packageDir, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  copyFileSync(join(packageDir, 'package.json'), join(root, 'package.json'));
  project.provide('packageRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}

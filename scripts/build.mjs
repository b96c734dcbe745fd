// The production build: the server and `arbiter` command (apps/server/dist), the TypeScript
// client library (clients/typescript/dist) and the dashboard the server serves (apps/dashboard/dist). Each target is rebuilt only when one of its inputs
// is newer than its last build, so a start with nothing changed costs a directory walk.
// Usage: node scripts/build.mjs [--force]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const force = process.argv.includes('--force');

const targets = [
  {
    name: 'server',
    dir: 'apps/server',
    output: 'apps/server/dist/cli.cjs',
    inputs: [
      'apps/server/src',
      'apps/server/tsup.config.ts',
      'apps/server/package.json',
      'packages/bucketing/src',
      'packages/conditions/src',
      'packages/contract/src',
      'packages/stats/src',
      'package-lock.json',
    ],
  },
  {
    name: 'TypeScript client',
    dir: 'clients/typescript',
    output: 'clients/typescript/dist/index.js',
    inputs: [
      'clients/typescript/src',
      'clients/typescript/tsup.config.ts',
      'clients/typescript/package.json',
      'packages/bucketing/src',
      'packages/conditions/src',
    ],
  },
  {
    name: 'dashboard',
    dir: 'apps/dashboard',
    output: 'apps/dashboard/dist/index.html',
    // Its API types come from the server's OpenAPI document, kept in packages/contract.
    inputs: [
      'apps/dashboard/src',
      'apps/dashboard/index.html',
      'apps/dashboard/public',
      'apps/dashboard/vite.config.ts',
      'apps/dashboard/package.json',
      'apps/dashboard/scripts',
      'packages/conditions/src',
      'packages/contract/src',
      'packages/contract/openapi.json',
    ],
    script: 'scripts/build.mjs',
  },
];

/** Newest modification time under a file or folder, in ms. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

// Stamps live outside dist/ so they never end up in a package.
const stamps = join(root, 'node_modules', '.cache', 'arbiter-build');
mkdirSync(stamps, { recursive: true });

for (const target of targets) {
  const stamp = join(stamps, `${target.dir.replaceAll('/', '-')}.stamp`);
  const built = existsSync(stamp) && existsSync(join(root, target.output));
  const builtAt = built ? statSync(stamp).mtimeMs : 0;
  const changedAt = Math.max(...target.inputs.map((p) => newest(join(root, p))));
  if (!force && builtAt >= changedAt) continue;
  process.stderr.write(`building the ${target.name}\n`);
  const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');
  const args = target.script ? [target.script] : [tsup, '--silent'];
  const run = spawnSync(process.execPath, args, {
    cwd: join(root, target.dir),
    // Output to stderr: a failing build must say why (tsc writes its errors to stdout).
    stdio: ['ignore', 2, 'inherit'],
  });
  if (run.status !== 0) {
    process.stderr.write(`build of the ${target.name} failed (exit ${run.status})\n`);
    process.exit(1);
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

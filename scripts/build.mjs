// The production build: the server and `arbiter` command (apps/server/dist) and the TypeScript
// client library (clients/typescript/dist). Each target is rebuilt only when one of its inputs
// is newer than its last build, so a start with nothing changed costs a directory walk.
// Usage: node scripts/build.mjs [--force]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const force = process.argv.includes('--force');

const targets = [
  {
    name: 'server',
    dir: 'apps/server',
    inputs: [
      'apps/server/src',
      'apps/server/tsup.config.ts',
      'apps/server/package.json',
      'packages/bucketing/src',
      'packages/stats/src',
      'package-lock.json',
    ],
  },
  {
    name: 'TypeScript client',
    dir: 'clients/typescript',
    inputs: [
      'clients/typescript/src',
      'clients/typescript/tsup.config.ts',
      'clients/typescript/package.json',
      'packages/bucketing/src',
    ],
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

for (const target of targets) {
  const stamp = join(root, target.dir, 'dist', '.built');
  const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  const changedAt = Math.max(...target.inputs.map((p) => newest(join(root, p))));
  if (!force && builtAt >= changedAt) continue;
  process.stderr.write(`building the ${target.name}\n`);
  const tsup = join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');
  const run = spawnSync(process.execPath, [tsup, '--silent'], {
    cwd: join(root, target.dir),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (run.status !== 0) {
    process.stderr.write(`build of the ${target.name} failed (exit ${run.status})\n`);
    process.exit(1);
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

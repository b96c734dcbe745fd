// The dashboard's build: the server's OpenAPI document → TypeScript types → typecheck → bundle.
// Types come from packages/contract/openapi.json, the document the server serves (a server test
// holds the file to it), so a server change that breaks a page fails here instead of in a
// user's browser, and the build reads no server source.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// npm hoists most tools to the root; a version the root does not share (vite) stays local.
const bin = (name) =>
  [
    join(root, 'node_modules', '.bin', name),
    join(root, '..', '..', 'node_modules', '.bin', name),
  ].find(existsSync) ?? name;
// The bundle is always the production one: a build started from inside a test runner (which
// sets NODE_ENV=test) would otherwise get React's development build, 1.1 MB instead of 0.8 MB.
const env = { ...process.env, NODE_ENV: 'production' };
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env });

run(bin('openapi-typescript'), [
  '../../packages/contract/openapi.json',
  '-o',
  'src/api/schema.d.ts',
]);
run(bin('tsc'), ['-p', 'tsconfig.json']);
run(bin('tsc'), ['-p', 'tsconfig.node.json']);
run(bin('vite'), ['build', '--logLevel', 'warn']);

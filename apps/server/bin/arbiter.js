#!/usr/bin/env node
// The `arbiter` command. Runs the production build (dist/cli.js, made by scripts/build.mjs,
// which `npm start` and `npm test` run through scripts/bootstrap.sh) on plain Node. Without a
// build it says how to make one rather than compiling TypeScript on every start.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(built)) {
  process.stderr.write(
    'arbiter: the server is not built yet; run `sh scripts/bootstrap.sh` (or `npm start`) at the repository root first\n',
  );
  process.exit(1);
}
await import(built.href);

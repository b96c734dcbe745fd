#!/usr/bin/env node
// The `arbiter` command. Runs the production build (dist/cli.cjs, made by scripts/build.mjs,
// which `npm start` and `npm test` run through scripts/bootstrap.sh) on plain Node. Without a
// build it says how to make one rather than compiling TypeScript on every start.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { codeCacheFile, runWithCodeCache } from './code-cache.js';

const built = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
if (!existsSync(built)) {
  process.stderr.write(
    'arbiter: the server is not built yet; run `sh scripts/bootstrap.sh` (or `npm start`) at the repository root first\n',
  );
  process.exit(1);
}
// PGlite's WebAssembly moves a function to V8's optimising compiler once it has run about this
// many bytes (V8's default is 1.8 million). At the default, opening the database and the first
// queries send hundreds of PostgreSQL's functions to that compiler, a third of a restart's CPU
// on a busy machine; at 100 times it only the functions that stay hot are, a fraction of a
// second later (docs/decisions/operations.md#build-start-and-the-demo, bench/startup/RESULTS.md).
const flags = '--wasm-tiering-budget=180000000';
setFlagsFromString(flags);
const argv = process.argv.slice(2);
runWithCodeCache(built, codeCacheFile(built, argv, process.env, flags));

// Runs the server's bundled script with the compiled code an earlier run of the same command
// stored, so that a restart does not parse and compile its 5 MB again (a fifth of a restart's
// CPU, bench/startup/RESULTS.md). Node 20 offers this only for a script: V8's cached data of a
// `vm.Script` (Node 22's `module.enableCompileCache()` does the same for any module).
//
// The cache sits in the data dir's `cache` folder, beside the stored OpenAPI document: the one
// place a server may write that outlives a container. Its name holds everything V8 needs to be
// the same for the code to be reused (the build, Node's version, the architecture, the flags
// set before compiling, the command), so a new build or Node writes a new file instead of V8
// finding a stale one; V8 still refuses data it cannot use, and the script then compiles as if
// there were none. A data dir is trusted as the code is: it holds the signing keys and the
// database already.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import vm from 'node:vm';

/** Settings' default data dir (src/settings-schema.ts), read before any of the server loads. */
export const DEFAULT_DATA_DIR = './.arbiter';

// The commands a code cache is kept for: those run again and again on one data dir, where a
// start's time is what an operator waits for.
const CACHED_COMMANDS = new Set(['serve', 'token']);

/**
 * Where the code `argv`'s command compiles is kept, or null when none is: another command, a
 * `--help` (which must leave the data dir untouched), or no build identity.
 */
export function codeCacheFile(bundle, argv, env, flags, cwd = process.cwd()) {
  const command = argv[0];
  if (!CACHED_COMMANDS.has(command) || argv.includes('--help') || argv.includes('-h')) return null;
  let buildId;
  try {
    buildId = readFileSync(join(dirname(bundle), 'build-id'), 'utf8').trim();
  } catch {
    return null;
  }
  const dataDir = env.ARBITER_DATA_DIR ?? DEFAULT_DATA_DIR;
  const key = createHash('sha256')
    .update(JSON.stringify([buildId, process.version, process.arch, flags, command]))
    .digest('hex')
    .slice(0, 32);
  return join(
    isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    'cache',
    `code-${command}-${key}.bin`,
  );
}

/**
 * Compiles the CommonJS script `bundle` with the code stored in `cacheFile` (when there is one
 * V8 accepts) and runs it. When none was used, the code compiled by the time the process exits
 * is stored for the next run. Returns what happened to the stored code: 'used', 'rejected' or
 * 'absent'.
 */
export function runWithCodeCache(bundle, cacheFile) {
  const cachedData = cacheFile === null ? undefined : readIfPresent(cacheFile);
  const script = new vm.Script(Module.wrap(readFileSync(bundle, 'utf8')), {
    filename: bundle,
    cachedData,
  });
  const outcome =
    cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used';
  if (cacheFile !== null && outcome !== 'used') {
    // At exit the code holds every function the command compiled, not only the top level; a
    // command that failed stores nothing.
    process.once('exit', (code) => {
      if (code === 0) storeCode(cacheFile, script);
    });
  }
  const module = new Module(bundle);
  module.filename = bundle;
  const run = script.runInThisContext();
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return outcome;
}

function readIfPresent(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the script's code in one rename (a concurrent reader sees the whole file or none),
 * and removes what the same command stored for other builds. Only into a data dir that exists:
 * a command that failed before making it leaves no folder behind. A data dir that cannot be
 * written costs the next start its compile, nothing more.
 */
function storeCode(file, script) {
  const folder = dirname(file);
  if (!existsSync(dirname(folder))) return;
  try {
    mkdirSync(folder, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, file);
    const name = basename(file);
    const prefix = name.slice(0, name.lastIndexOf('-') + 1);
    for (const other of readdirSync(folder)) {
      if (other.startsWith(prefix) && other.endsWith('.bin') && other !== name) {
        rmSync(join(folder, other), { force: true });
      }
    }
  } catch {
    // Read-only or full: the next start compiles, as it would without a cache.
  }
}

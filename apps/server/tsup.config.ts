import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { defineConfig } from 'tsup';
import { writeSeed } from './src/db/pglite-seed.ts';

// The production build of the server and the `arbiter` command: one script for Node
// (dist/cli.cjs), with the workspace packages (TypeScript sources) and the npm dependencies a
// start loads bundled in, so that a restart reads one file instead of resolving and compiling
// some 900 CommonJS files one by one. It is a CommonJS script rather than ES modules because
// Node 20 keeps V8's compiled code between runs only for a script (`vm.Script`'s cached data):
// bin/arbiter.js compiles it with the code the last run stored (bin/code-cache.js,
// bench/startup/RESULTS.md). The packages below stay requires resolved from node_modules. The
// SQL migrations are copied beside it (connect.ts finds them relative to its own module, which
// is dist/cli.cjs once bundled), and so is the PGlite seed: a migrated empty database a first
// start unpacks instead of running initdb (src/db/pglite-seed.ts).
const keptExternal = [
  // Finds files of its own beside its modules: its WebAssembly and data.
  '@electric-sql/pglite',
  // Loaded only when a PostgreSQL server is configured; it requires its optional native
  // binding, which a bundler cannot resolve.
  'pg',
  // The ReDoS analyser, loaded at the first pattern it checks: it finds its native agent's
  // package and its worker beside its modules, and its pure JavaScript build is 3 MB.
  'recheck',
  // The SDKs of integrations, imported only when the integration is configured: no start of an
  // unconfigured server pays for them, and bundling them would only grow dist.
  '@aws-sdk',
  '@clerk/backend',
  '@fastify/otel',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
  '@platformatic/kafka',
  'nodemailer',
  'openai',
  'stripe',
];
const escapeRegExp = (name: string) => name.replaceAll(/[/.]/g, (c) => `\\${c}`);
const keptPattern = `(${keptExternal.map(escapeRegExp).join('|')})(/|$)`;

// @fastify/swagger-ui serves the pages of its `static` folder, which it finds from `__dirname`.
// Bundled (with its 120 files of dependencies), its modules are given the folder it is installed
// in, resolved from dist when the server starts.
const swaggerUiModule = /[\\/]node_modules[\\/]@fastify[\\/]swagger-ui[\\/](lib[\\/])?[^\\/]+\.js$/;
const swaggerUiDirname: Plugin = {
  name: 'swagger-ui-dirname',
  setup(build) {
    build.onLoad({ filter: swaggerUiModule }, async (args) => {
      const sub = /[\\/]lib[\\/][^\\/]+$/.test(args.path) ? ", 'lib'" : '';
      const dirname = `require('node:path').join(require('node:path').dirname(require.resolve('@fastify/swagger-ui'))${sub})`;
      const source = await readFile(args.path, 'utf8');
      return { contents: `var __dirname = ${dirname};\n${source}`, loader: 'js' };
    });
  },
};

export default defineConfig({
  entry: { cli: 'src/cli.ts' },
  format: ['cjs'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  // One script: a command's dynamic imports become functions of it run on first use, and the
  // code cache (keyed by command) holds only what that command compiled.
  splitting: false,
  sourcemap: true,
  dts: false,
  // Every bare specifier is bundled but those kept external (Node's own modules stay requires).
  noExternal: [new RegExp(`^(?!${keptPattern})[^./]`)],
  external: [new RegExp(`^${keptPattern}`)],
  // The sources find files beside their module by `import.meta.url`: in the script, its own
  // file's URL (pathToFileURL escapes what a bare `file:` prefix would not).
  banner: { js: "var __arbiterModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  esbuildOptions(options) {
    options.define = { ...options.define, 'import.meta.url': '__arbiterModuleUrl' };
    // A package kept outside the bundle loads by `require` where the source says `import()`: a
    // script compiled with cached code has no module loader for `import()` but Node's
    // experimental one, which warns at its first use. Node 20.19 and later require an ES
    // module package too (@platformatic/kafka).
    options.supported = { ...options.supported, 'dynamic-import': false };
    // swagger-ui's modules resolve their own folder at start (swaggerUiDirname), on purpose.
    options.logOverride = { ...options.logOverride, 'require-resolve-not-external': 'silent' };
  },
  esbuildPlugins: [swaggerUiDirname],
  removeNodeProtocol: false,
  onSuccess: async () => {
    cpSync('src/db/migrations', 'dist/migrations', { recursive: true });
    await writeSeed('dist/pglite-seed.tar.gz', 'src/db/migrations');
    // The build's identity: what the server keys its stored OpenAPI document by
    // (src/http/openapi-document-store.ts), a hash of every module of the build.
    const hash = createHash('sha256');
    for (const name of readdirSync('dist')
      .filter((n) => n.endsWith('.js') || n.endsWith('.cjs'))
      .sort()) {
      hash.update(name).update(readFileSync(join('dist', name)));
    }
    writeFileSync('dist/build-id', `${hash.digest('hex').slice(0, 32)}\n`);
  },
});

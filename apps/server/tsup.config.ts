import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { writeSeed } from './src/db/pglite-seed.ts';

// The production build of the server and the `arbiter` command: one ES module for Node, with the
// workspace packages (TypeScript sources) bundled in and every npm dependency left to
// node_modules. The SQL migrations are copied beside it (connect.ts finds them relative to its
// own module, which is dist/cli.js once bundled), and so is the PGlite seed: a migrated empty
// database a first start unpacks instead of running initdb (src/db/pglite-seed.ts).
export default defineConfig({
  entry: { cli: 'src/cli.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  // Chunks, so the commands' dynamic imports load only what each command needs.
  splitting: true,
  sourcemap: true,
  dts: false,
  // Bare specifiers other than the workspace packages stay imports resolved from node_modules.
  noExternal: [/^@arbiter\//, /^typebox(\/|$)/, /^drizzle-orm(\/|$)/],
  external: [/^(?!@arbiter\/|typebox(\/|$)|drizzle-orm(\/|$))[^./]/],
  removeNodeProtocol: false,
  onSuccess: async () => {
    cpSync('src/db/migrations', 'dist/migrations', { recursive: true });
    await writeSeed('dist/pglite-seed.tar.gz', 'src/db/migrations');
  },
});

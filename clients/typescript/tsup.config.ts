import { defineConfig, type Options } from 'tsup';

// @arbiter/bucketing and @arbiter/conditions are workspace packages: they are bundled, so the
// published library has no runtime dependencies.
const shared: Options = {
  format: ['esm', 'cjs'],
  // The platform parameter of the shared client class is not part of the public surface.
  dts: { compilerOptions: { stripInternal: true } },
  sourcemap: true,
  splitting: false,
  treeshake: true,
  noExternal: ['@arbiter/bucketing', '@arbiter/conditions'],
  outDir: 'dist',
  // Node 18 knows the node: scheme, and it tells bundlers these are built-ins.
  removeNodeProtocol: false,
};

export default defineConfig([
  { ...shared, entry: { index: 'src/index.ts' }, platform: 'node', target: 'node18' },
  // The browser entry also serves runtimes without Node built-ins (workers, Deno, edge).
  // es2022 keeps the `#` fields native: es2020 lowered them to WeakMap helpers, which cost
  // assign() a quarter of its speed (docs/decisions/clients.md#typescript-client).
  { ...shared, entry: { browser: 'src/browser.ts' }, platform: 'browser', target: 'es2022' },
  // The framework integrations (`@arbiter/client/ai-sdk`, `/langchain`) run wherever the
  // frameworks do, Node and edge alike: no built-ins, and nothing imported from the frameworks.
  {
    ...shared,
    entry: { 'ai-sdk': 'src/ai-sdk.ts', langchain: 'src/langchain.ts' },
    platform: 'neutral',
    target: 'es2022',
  },
]);

import { defineConfig } from 'tsup';

// The SDK and the client are the application's (peer dependencies): nothing of theirs is bundled.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  splitting: false,
  treeshake: true,
  platform: 'node',
  target: 'node18',
  outDir: 'dist',
  external: ['@arbiter/client', '@openfeature/server-sdk', '@openfeature/core'],
});

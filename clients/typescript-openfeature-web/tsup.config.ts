import { defineConfig } from 'tsup';

// The SDK and the client are the application's (peer dependencies): nothing of theirs is
// bundled. The flag rules are the server provider's source, bundled in.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  splitting: false,
  treeshake: true,
  platform: 'browser',
  target: 'es2022',
  outDir: 'dist',
  external: ['@arbiter/client', '@openfeature/web-sdk', '@openfeature/core'],
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'client-ts',
    include: ['test/**/*.test.ts'],
    // Builds the published bundles once; the package and browser tests use them.
    globalSetup: ['test/support/build-dist.ts'],
    // Some tests start Chromium, tsc or node; a busy machine must not fail them. No test asserts
    // on how long anything took.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

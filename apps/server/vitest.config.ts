import { defineConfig } from 'vitest/config';

// Generous guards: some tests start real server processes on a shared 2-core machine.
// They bound a hung test; no test asserts on time.
export default defineConfig({
  test: {
    name: 'server',
    include: ['test/**/*.test.ts'],
    // Tests that spawn `arbiter` run apps/server/dist: rebuilt here when a source changed.
    globalSetup: ['test/support/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

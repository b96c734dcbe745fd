import { defineConfig } from 'vitest/config';

// Generous guards: some tests start real server processes on a shared 2-core machine.
// They bound a hung test; no test asserts on time. Three minutes, not one: on a CI machine
// about twice as slow as ours, under the other suites running beside, a test that takes 14 s
// alone ran past 60 s and failed the run.
export default defineConfig({
  test: {
    name: 'server',
    include: ['test/**/*.test.ts'],
    // Tests that spawn `arbiter` run apps/server/dist: rebuilt here when a source changed.
    globalSetup: ['test/support/build.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Files run one after another in one worker that keeps its module graph: the server's
    // modules and PGlite's WebAssembly load once per pass instead of once per file, which was
    // more than half of a pass (docs/decisions/operations.md#test-suites). Each file starts its own
    // database and app, and no test changes module state or the environment.
    isolate: false,
  },
});

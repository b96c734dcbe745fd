import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'dashboard',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Each file drives its own Chromium against its own server process: one at a time, so two
    // never compete for the shared machine's cores.
    fileParallelism: false,
    // A busy machine must not fail them. No test asserts on how long anything took.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // expect.poll waits for the browser or the ingest worker, like Playwright's own waits (30 s);
    // vitest's 1 s default failed a preliminary analysis on a loaded machine.
    expect: { poll: { timeout: 30_000 } },
  },
});

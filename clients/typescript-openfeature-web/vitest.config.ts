import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'openfeature-web',
    include: ['test/**/*.test.ts'],
    // The test starts the real server and Chromium: a busy machine must not fail it. No test
    // asserts on how long anything took.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});

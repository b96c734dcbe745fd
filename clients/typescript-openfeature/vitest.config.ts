import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'openfeature-ts',
    include: ['test/**/*.test.ts'],
    // The tests start the real server (`arbiter serve`) and evaluate 10,000 users: a busy
    // machine must not fail them. No test asserts on how long anything took.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

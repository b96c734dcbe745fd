import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'dashboard',
    include: ['test/**/*.test.ts'],
    // Drives Debian's Chromium against a real server process; a busy machine must not fail it.
    // No test asserts on how long anything took.
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});

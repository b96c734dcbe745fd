import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'conditions',
    include: ['test/**/*.test.ts'],
    // The property tests run thousands of random cases; beside the server passes on a loaded
    // 2-core machine they took over vitest's 5 s default (four timed out at a load of 20–30).
    // A guard against a hang, like the other projects' 60 s, not a bound on speed.
    testTimeout: 60_000,
  },
});

import { defineConfig } from 'vitest/config';

// A guard against a hung test, not a bound on speed: the 200,000-id hashing test takes about a
// second alone and several at a load of 20 on this 2-core machine, past vitest's 5 s default.
export default defineConfig({
  test: { name: 'bucketing', include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The container suite (scripts/test-suites/container.sh builds the image and runs this).
// Generous guards: containers start and stop on a shared 2-core machine; no test asserts on time.
export default defineConfig({
  test: {
    name: 'container',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});

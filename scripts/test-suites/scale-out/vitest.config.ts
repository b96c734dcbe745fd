import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The scale-out suite (scripts/test-suites/scale-out.sh): real Kafka nodes and a real S3
// server process. Generous guards: JVMs start on a shared 2-core machine; no test asserts on time.
export default defineConfig({
  test: {
    name: 'scale-out',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    fileParallelism: false,
    // The Kafka event log's fold workers run as `arbiter serve` processes, from the build.
    globalSetup: ['../../../apps/server/test/support/build.ts'],
  },
});

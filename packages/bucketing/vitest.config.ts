import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'bucketing', include: ['test/**/*.test.ts'] } });

import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'conditions', include: ['test/**/*.test.ts'] } });

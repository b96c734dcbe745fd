import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'stats', include: ['test/**/*.test.ts'] } });

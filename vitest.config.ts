import { defineConfig } from 'vitest/config';

// Each workspace keeps its own vitest.config.ts; the test command selects projects by name.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'clients/*'],
  },
});

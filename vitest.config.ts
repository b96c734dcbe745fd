import { defineConfig } from 'vitest/config';

// Each workspace keeps its own vitest.config.ts; the test command selects projects by name.
// clients/ also holds the Python and Java libraries and a README: only a config there is a project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'clients/*/vitest.config.ts'],
  },
});

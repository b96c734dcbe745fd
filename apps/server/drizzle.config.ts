import { defineConfig } from 'drizzle-kit';

// drizzle-kit writes plain SQL migrations from src/db/schema.ts; PGlite and a PostgreSQL
// server apply the same files.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './src/db/migrations',
});

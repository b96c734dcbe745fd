import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createContext } from '../../server/src/create-context.ts';

/**
 * Writes the server's OpenAPI document (what GET /v1/openapi.json answers) to the path given,
 * from an app built in this process on a throw-away embedded database, in development mode so
 * the development sign-in route is described too.
 */
const out = process.argv[2];
if (!out) throw new Error('usage: openapi-document.ts <out.json>');
const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-openapi-'));
try {
  const config = loadConfig({
    ARBITER_DATA_DIR: dataDir,
    ARBITER_LOG_LEVEL: 'silent',
    ARBITER_INGEST_WORKER: 'false',
    ARBITER_SCHEDULER: 'false',
  });
  const ctx = await createContext(config);
  const app = await buildApp(ctx, { logger: false });
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  writeFileSync(out, res.body);
  await app.close();
  await ctx.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

import type { Database } from '../../../server/src/db/connect.ts';
import { openDatabase } from '../../../server/src/db/connect.ts';
import { serveEmbedded, type TestServer } from './server.ts';

/**
 * Puts a server's embedded database in a state that takes days of real time to reach (an
 * endpoint failing for five days, a guard that acted): stops the server, changes the rows
 * with `change`, and starts a server again on the same data folder with the same settings,
 * so what follows is the real server reading what it stored. PGlite admits one process, hence
 * the stop.
 */
export async function restartWithStored(
  server: TestServer,
  env: Record<string, string>,
  change: (db: Database) => Promise<unknown>,
): Promise<TestServer> {
  await server.stop();
  const handle = await openDatabase({ kind: 'pglite', dataDir: server.dataDir });
  try {
    await change(handle.db);
  } finally {
    await handle.close();
  }
  return serveEmbedded({ ...env, ARBITER_DATA_DIR: server.dataDir });
}

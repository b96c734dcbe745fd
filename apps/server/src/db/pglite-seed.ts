import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

/**
 * A fresh PGlite database spends most of a first start in initdb (many seconds on a busy
 * machine). The production build runs initdb and the migrations once and keeps the result as a
 * tarball beside the bundle; a first start on an empty data dir unpacks it instead. Migrations
 * still run at every start, so a seed older than the code only means more of them to apply.
 */
const SEED = fileURLToPath(new URL('./pglite-seed.tar.gz', import.meta.url));

/**
 * A seed file as the plain tarball PGlite reads. PGlite would unpack a gzipped one through web
 * streams, about a third of its start's CPU; Node's zlib does it in one call.
 */
export function unpackedSeed(path: string | URL): Blob {
  return new Blob([gunzipSync(readFileSync(path))]);
}

/** The build's seed, when it made one. */
export function bundledSeed(): Blob | undefined {
  return existsSync(SEED) ? unpackedSeed(SEED) : undefined;
}

/** The seed to load into `pgdata`, when the folder is empty and the build made one. */
export function seedFor(pgdata: string): Blob | undefined {
  return readdirSync(pgdata).length > 0 ? undefined : bundledSeed();
}

/** Build step: an initialised, migrated database as a gzipped tarball at `path`. */
export async function writeSeed(path: string, migrationsFolder: string): Promise<void> {
  const client = await PGlite.create();
  await migrate(drizzle(client) as never, { migrationsFolder });
  const dump = await client.dumpDataDir('gzip');
  await client.close();
  writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
}

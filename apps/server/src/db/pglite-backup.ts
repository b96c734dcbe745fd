import type { NonSharedBuffer } from 'node:buffer';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir } from './data-dir-lock.ts';

/**
 * A backup of the embedded database is PGlite's own dump of its data directory (`dumpDataDir`,
 * the format `loadDataDir` reads), gzipped: `<dataDir>/pgdata` as a tarball.
 */

/** A file or directory that is not what a restore or an offline backup needs; the message says why. */
export class BackupError extends Error {}

/**
 * The data directory as a tarball (uncompressed), taken between transactions: PGlite runs one
 * statement at a time, and holding its transaction mutex waits out a transaction in progress
 * and keeps the next one from starting until the files are read. Every transaction committed
 * before the call is in it (its WAL is on disk; a checkpoint first writes the pages too, so a
 * restore replays little). Queries wait while the files are read.
 */
export async function dumpPglite(client: PGlite): Promise<Blob> {
  await client.exec('checkpoint');
  return client._runExclusiveTransaction(() => client.dumpDataDir('none'));
}

/**
 * The tarball gzipped (the backup file's bytes) in one job on libuv's thread pool: an output
 * buffer as large as the input (deflate never grows data by more than a few bytes per block)
 * makes it one call back. zlib's usual 16 KiB chunks would take a turn of the server's event
 * loop each, which a busy server (PGlite runs its statements on that loop) stretched from two
 * seconds to minutes.
 */
export async function gzipTarball(tar: Blob): Promise<Buffer> {
  const bytes = new Uint8Array(await tar.arrayBuffer());
  return promisify(gzip)(bytes, { chunkSize: bytes.length + 64 * 1024 });
}

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * A backup of a data dir no server runs on: opens it (holding its lock, so no server starts
 * meanwhile) without migrating anything, dumps it and closes it.
 */
export async function dumpDataDirOffline(dataDir: string): Promise<Blob> {
  const pgdata = join(dataDir, 'pgdata');
  if (entriesOf(pgdata).length === 0)
    throw new BackupError(`there is no embedded database in ${dataDir} (no ${pgdata})`);
  const unlock = lockDataDir(dataDir);
  try {
    const client = await PGlite.create({ dataDir: pgdata });
    try {
      return await dumpPglite(client);
    } finally {
      await client.close();
    }
  } finally {
    unlock();
  }
}

/** A restore goes only into an empty or absent directory: it never mixes with or replaces data. */
export function refuseNonEmpty(dataDir: string): void {
  const existing = entriesOf(dataDir);
  if (existing.length > 0)
    throw new BackupError(
      `the data dir ${dataDir} is not empty (it holds ${existing.slice(0, 3).join(', ')}${existing.length > 3 ? ', …' : ''}); restore into an empty or new directory (ARBITER_DATA_DIR); nothing was changed`,
    );
}

export interface RestoredDatabase {
  migrations: number;
  experiments: number;
  events: number;
}

async function gunzipped(file: Buffer, from: string): Promise<NonSharedBuffer> {
  try {
    return await promisify(gunzip)(file);
  } catch (error) {
    throw new BackupError(`${from} is not a gzipped backup (${(error as Error).message})`);
  }
}

/** What the restored database holds; refuses one with no migration applied (not Arbiter's). */
async function inspect(client: PGlite, from: string): Promise<RestoredDatabase> {
  const count = async (table: string) =>
    (await client.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]?.n ?? 0;
  try {
    const migrations = await count('drizzle.__drizzle_migrations');
    if (migrations === 0) throw new Error('no migration recorded');
  } catch {
    throw new BackupError(`${from} does not hold an Arbiter database`);
  }
  return {
    migrations: await count('drizzle.__drizzle_migrations'),
    experiments: await count('experiments'),
    events: await count('events'),
  };
}

/**
 * Restores a backup (`file`, its bytes) into `dataDir`, which must be empty or absent: a
 * non-empty one is refused before anything is written. The restored database is opened once
 * (PGlite replays its WAL) and checked to be Arbiter's; on any failure what was written is
 * removed, leaving the directory as it was. Migrations are not run: the server runs them when
 * it starts on the directory.
 */
export async function restoreDataDir(
  dataDir: string,
  file: Buffer,
  from: string,
): Promise<RestoredDatabase> {
  refuseNonEmpty(dataDir);
  const tar = await gunzipped(file, from);
  const created = !existsSync(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  const pgdata = join(dataDir, 'pgdata');
  let restored = false;
  try {
    mkdirSync(pgdata);
    const client = await PGlite.create({
      dataDir: pgdata,
      loadDataDir: new Blob([tar], { type: 'application/x-tar' }),
    });
    try {
      const summary = await inspect(client, from);
      restored = true;
      return summary;
    } finally {
      await client.close();
    }
  } finally {
    if (!restored) rmSync(pgdata, { recursive: true, force: true });
    unlock();
    if (!restored && created) rmSync(dataDir, { recursive: true, force: true });
  }
}

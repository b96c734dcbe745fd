import type { NonSharedBuffer } from 'node:buffer';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip, gunzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { pack } from 'tar-stream';
import { lockDataDir } from './data-dir-lock.ts';

/**
 * A backup of the embedded database is its data directory, `<dataDir>/pgdata`, as a gzipped
 * tarball with the entries of PGlite's own dump (`dumpDataDir`), which `loadDataDir` reads.
 */

/** A file or directory that is not what a restore or an offline backup needs; the message says why. */
export class BackupError extends Error {}

/** One entry of the tarball, read while no statement runs. */
interface CopiedEntry {
  /** Relative to `pgdata`, with a leading slash, as `dumpDataDir` names it. */
  name: string;
  mode: number;
  mtime: Date;
  /** null for a directory. */
  data: Buffer | null;
}

/**
 * A consistent copy of the data directory, held in memory once the files are read: `gzipped()`
 * streams it as the backup file's bytes (a tarball packed by tar-stream, gzipped on libuv's
 * thread pool). `files` and `bytes` count what was copied.
 */
export interface DataDirCopy {
  files: number;
  bytes: number;
  gzipped(): Readable;
}

/** Files read at once: enough to keep the thread pool's four threads busy, no more. */
const READS_AT_ONCE = 4;

/**
 * Reads the tree under `root` as `dumpDataDir` walks it (an entry, then a directory's
 * contents), through fs.promises: each read is a job on the thread pool, so the event loop
 * answers other requests in between and only statements (held by the caller) wait.
 */
async function copyTree(root: string, dir: string, into: CopiedEntry[]): Promise<void> {
  const names = await readdir(dir);
  const entries = await inBatches(names, READS_AT_ONCE, async (entry) => {
    const path = join(dir, entry);
    const stats = await stat(path);
    const data = stats.isDirectory() ? null : await readFile(path);
    return {
      path,
      entry: { name: path.slice(root.length), mode: stats.mode, mtime: stats.mtime, data },
    };
  });
  for (const { path, entry } of entries) {
    into.push(entry);
    if (entry.data === null) await copyTree(root, path, into);
  }
}

/** `work` over `items`, `width` at a time, the results in the items' order. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>) {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width)
    results.push(...(await Promise.all(items.slice(i, i + width).map(work))));
  return results;
}

/** Writes to zlib of about this size: each write is a job on the thread pool and a turn of the loop. */
const GZIP_WRITE = 1024 * 1024;

/** The packer's output gathered into writes of about GZIP_WRITE bytes. */
async function* coalesced(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let batch: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    batch.push(chunk);
    size += chunk.length;
    if (size >= GZIP_WRITE) {
      yield Buffer.concat(batch, size);
      batch = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(batch, size);
}

/** The copied entries as a gzipped tarball, packed and compressed as the reader takes it. */
function gzippedTarball(entries: CopiedEntry[]): Readable {
  const tarball = pack();
  const gzip = createGzip({ chunkSize: GZIP_WRITE });
  void (async () => {
    for (const { name, mode, mtime, data } of entries) {
      const header = { name, mode: mode & 0o777, mtime, uid: 0, gid: 0 };
      await new Promise<void>((done, fail) => {
        if (data === null)
          tarball.entry({ ...header, type: 'directory' }, (e) => (e ? fail(e) : done()));
        else
          tarball.entry({ ...header, type: 'file', size: data.length }, data, (e) =>
            e ? fail(e) : done(),
          );
      });
    }
    tarball.finalize();
  })().catch((error: Error) => tarball.destroy(error));
  pipeline(Readable.from(coalesced(tarball as AsyncIterable<Buffer>)), gzip).catch((error: Error) =>
    gzip.destroy(error),
  );
  return gzip;
}

/** PGlite's own dump, one synchronous block: the only way into an in-memory database. */
async function dumpInMemory(client: PGlite): Promise<DataDirCopy> {
  const tar = Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
  return {
    files: 0,
    bytes: tar.length,
    gzipped: () => Readable.from([tar]).pipe(createGzip({ chunkSize: GZIP_WRITE })),
  };
}

/**
 * The data directory, taken between transactions: PGlite runs one statement at a time, and
 * holding its transaction mutex waits out a transaction in progress and keeps the next one
 * from starting until the files are read. Every transaction committed before the call is in it
 * (its WAL is on disk; a checkpoint first writes the pages too, so a restore replays little).
 * On disk (`pgdata`, which PGlite's NODEFS writes straight through) the files are read
 * asynchronously: statements wait, the event loop does not. The mutex is released once the
 * files are in memory; packing and gzip happen as the copy is sent.
 */
export async function dumpPglite(client: PGlite, pgdata: string | null): Promise<DataDirCopy> {
  await client.exec('checkpoint');
  if (pgdata === null) return client._runExclusiveTransaction(() => dumpInMemory(client));
  const entries: CopiedEntry[] = [];
  await client._runExclusiveTransaction(() => copyTree(pgdata, pgdata, entries));
  return {
    files: entries.length,
    bytes: entries.reduce((n, e) => n + (e.data?.length ?? 0), 0),
    gzipped: () => gzippedTarball(entries),
  };
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
export async function dumpDataDirOffline(dataDir: string): Promise<DataDirCopy> {
  const pgdata = join(dataDir, 'pgdata');
  if (entriesOf(pgdata).length === 0)
    throw new BackupError(`there is no embedded database in ${dataDir} (no ${pgdata})`);
  const unlock = lockDataDir(dataDir);
  try {
    const client = await PGlite.create({ dataDir: pgdata });
    try {
      return await dumpPglite(client, pgdata);
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

import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Config } from './config.ts';
import { CONTROL_HEADER, readControlFile } from './control-file.ts';
import {
  BackupError,
  dumpDataDirOffline,
  type RestoredDatabase,
  refuseNonEmpty,
  restoreDataDir,
} from './db/pglite-backup.ts';

export { BackupError };

const ON_POSTGRES =
  'ARBITER_DATABASE_URL is set: `arbiter backup` and `arbiter restore` copy only the embedded PGlite database; back up a PostgreSQL server with pg_dump or a base backup (docs/operations.md#backups)';

/** fsync a file or directory by path. */
async function synced(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Reads the gzip stream to its end: a truncated or corrupt download fails here, not at restore. */
async function checkGzip(path: string): Promise<void> {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    await pipeline(createReadStream(path), createGunzip(), sink);
  } catch (error) {
    throw new BackupError(`the backup is not a complete gzip stream (${(error as Error).message})`);
  }
}

/**
 * Writes `bytes` to `out` or leaves `out` as it was: into a temporary file beside it (mode
 * 600: a backup holds every org's data), checked, synced, then renamed over `out`.
 */
async function writeAtomically(out: string, bytes: Readable): Promise<number> {
  const target = resolve(out);
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${randomBytes(4).toString('hex')}.partial`,
  );
  try {
    const file = createWriteStream(temporary, { mode: 0o600, flags: 'wx' });
    await pipeline(bytes, file);
    await checkGzip(temporary);
    await synced(temporary);
    renameSync(temporary, target);
    await synced(dirname(target));
    return file.bytesWritten;
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

async function fromRunningServer(url: string, token: string, pid: number): Promise<Readable> {
  let res: Response;
  try {
    res = await fetch(`${url}/v1/admin/backup`, {
      method: 'POST',
      headers: { [CONTROL_HEADER]: token },
    });
  } catch (error) {
    const cause = ((error as { cause?: Error }).cause ?? (error as Error)).message;
    throw new Error(
      `the server running on this data dir (process ${pid}, ${url}) did not answer: ${cause}`,
    );
  }
  if (!res.ok || res.body === null)
    throw new BackupError(`the running server answered ${res.status}: ${await res.text()}`);
  return Readable.fromWeb(res.body as never);
}

export interface BackupWritten {
  bytes: number;
  /** Who made the dump: the running server (its pid) or this command from the data dir. */
  source: { server: number } | 'data dir';
}

/**
 * `arbiter backup --out FILE`: the embedded database's backup, made by the server running on
 * the data dir (PGlite admits one process) or, when none runs, by opening the data dir.
 */
export async function writeBackup(config: Config, out: string): Promise<BackupWritten> {
  if (config.databaseUrl !== null) throw new BackupError(ON_POSTGRES);
  const running = readControlFile(config.dataDir);
  if (running !== null) {
    const body = await fromRunningServer(running.url, running.token, running.pid);
    return { bytes: await writeAtomically(out, body), source: { server: running.pid } };
  }
  const copy = await dumpDataDirOffline(config.dataDir);
  return {
    bytes: await writeAtomically(out, copy.gzipped()),
    source: 'data dir',
  };
}

/** `arbiter restore --from FILE`: the backup into the (empty) data dir. */
export async function restoreBackup(config: Config, from: string): Promise<RestoredDatabase> {
  if (config.databaseUrl !== null) throw new BackupError(ON_POSTGRES);
  const dataDir = resolve(config.dataDir);
  refuseNonEmpty(dataDir);
  let file: Buffer;
  try {
    file = readFileSync(from);
  } catch (error) {
    throw new BackupError(`cannot read ${from} (${(error as NodeJS.ErrnoException).code})`);
  }
  return restoreDataDir(dataDir, file, from);
}

import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Only the server's own user may read the embedded database: no group, no others. */
export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

/**
 * Makes the embedded data dir private whatever the umask: the dir itself 0700, every directory
 * under `pgdata` 0700 and every file there 0600, fixing what an earlier start (or a permissive
 * umask) left readable or writable by others. The process umask gains 077 so that the files
 * PGlite creates later (new relations, WAL segments) are born private too. Only `pgdata` is
 * walked: the data dir may hold files of the operator's own.
 */
export function secureDataDir(dataDir: string, pgdata: string): void {
  tightenUmask();
  chmodSync(dataDir, DATA_DIR_MODE);
  secureTree(pgdata);
}

function tightenUmask(): void {
  try {
    process.umask(process.umask() | 0o077);
  } catch {
    // A worker thread cannot change the umask; the modes set below still hold.
  }
}

function secureTree(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== DATA_DIR_MODE) chmodSync(path, DATA_DIR_MODE);
    for (const entry of readdirSync(path)) secureTree(join(path, entry));
  } else if ((stat.mode & 0o777) !== DATA_FILE_MODE) {
    chmodSync(path, DATA_FILE_MODE);
  }
}

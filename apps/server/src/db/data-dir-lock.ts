import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite admits one process per data dir: a second one beside it corrupts nothing only by
 * luck and dies with "RuntimeError: Aborted()". So whoever opens the embedded database holds
 * `<dataDir>/arbiter.lock` (its pid) for as long as it runs; a lock whose process is gone is
 * stale and taken over.
 */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data dir ${dataDir} is in use by process ${pid}; stop that process or set ARBITER_DATA_DIR to another directory`,
    );
  }
}

function lockPath(dataDir: string): string {
  return join(dataDir, 'arbiter.lock');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(dataDir: string): number | null {
  try {
    const pid = Number(JSON.parse(readFileSync(lockPath(dataDir), 'utf8')).pid);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the data dir's lock or throws DataDirInUseError; the returned function releases it. */
export function lockDataDir(dataDir: string): () => void {
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify({ pid: process.pid }), { flag: 'wx', mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off('exit', release);
        // Only our own lock: never a successor's that took over a stale file.
        if (holderOf(dataDir) === process.pid) rmSync(path, { force: true });
      };
      // Also on an exit that skips close() (a failed start, process.exit).
      process.on('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = holderOf(dataDir);
      if (holder !== null && alive(holder)) throw new DataDirInUseError(dataDir, holder);
      // Stale (its process is gone) or unreadable (a writer died mid-write): take it over.
      rmSync(path, { force: true });
    }
  }
  throw new DataDirInUseError(dataDir, holderOf(dataDir) ?? 0);
}

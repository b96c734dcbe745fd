import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A running server leaves its URL and control token in the data dir, so the `arbiter`
 * command asks it rather than opening an embedded database a second time (PGlite admits one
 * process).
 */
export interface ControlFile {
  url: string;
  pid: number;
  token: string;
}

/** The header that carries the control token to the admin routes. */
export const CONTROL_HEADER = 'x-arbiter-control';

function pathOf(dataDir: string): string {
  return join(dataDir, 'server.json');
}

export function writeControlFile(dataDir: string, file: ControlFile): void {
  writeFileSync(pathOf(dataDir), JSON.stringify(file), { mode: 0o600 });
}

/** Removes this process's control file; another server's is never touched. */
export function removeControlFile(dataDir: string): void {
  if (readRaw(dataDir)?.pid === process.pid) rmSync(pathOf(dataDir), { force: true });
}

function readRaw(dataDir: string): ControlFile | null {
  try {
    return JSON.parse(readFileSync(pathOf(dataDir), 'utf8')) as ControlFile;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The live server of this data dir, or null when none runs (a stale file is ignored). */
export function readControlFile(dataDir: string): ControlFile | null {
  const file = readRaw(dataDir);
  return file !== null && alive(file.pid) ? file : null;
}

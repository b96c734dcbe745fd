import { DISK_FULL } from './pg-error-codes.ts';

/**
 * Signs that a write met a full disk: PostgreSQL's `disk_full` (PGlite raises it too, "could not
 * extend file …: No space left on device"), and the file system's own errno when a file write
 * of ours failed. Quotas count as full.
 */
const DISK_FULL_CODES = new Set([DISK_FULL, 'ENOSPC', 'EDQUOT']);

/** Whether `error`, or an error it wraps (Drizzle wraps the driver's), says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  let at = error;
  for (let depth = 0; depth < 8 && at !== null && typeof at === 'object'; depth++) {
    const e = at as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && DISK_FULL_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && /No space left on device/.test(e.message)) return true;
    if (e.cause === at) return false;
    at = e.cause;
  }
  return false;
}

import {
  ADMIN_SHUTDOWN,
  CANNOT_CONNECT_NOW,
  CONNECTION_EXCEPTION_CLASS,
  CRASH_SHUTDOWN,
} from '../pg-error-codes.ts';

/** Node's and PostgreSQL's signs that a server cannot be reached or went away mid-call. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  ADMIN_SHUTDOWN,
  CRASH_SHUTDOWN,
  CANNOT_CONNECT_NOW,
]);

/** Whether `error` says the shard is not there (down, restarting, unreachable), not a bad statement. */
export function isShardUnreachable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (
    typeof e.code === 'string' &&
    (UNREACHABLE_CODES.has(e.code) || e.code.startsWith(CONNECTION_EXCEPTION_CLASS))
  )
    return true;
  // pg ends a pool's connect with these messages and no code
  if (
    typeof e.message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect/.test(e.message)
  )
    return true;
  return e.cause !== undefined && e.cause !== error && isShardUnreachable(e.cause);
}

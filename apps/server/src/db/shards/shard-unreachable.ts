/** Node's and PostgreSQL's signs that a server cannot be reached or went away mid-call. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
]);

/** Whether `error` says the shard is not there (down, restarting, unreachable), not a bad statement. */
export function isShardUnreachable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith('08')))
    return true;
  // pg ends a pool's connect with these messages and no code
  if (
    typeof e.message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect/.test(e.message)
  )
    return true;
  return e.cause !== undefined && e.cause !== error && isShardUnreachable(e.cause);
}

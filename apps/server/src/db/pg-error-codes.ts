/**
 * The PostgreSQL error codes (SQLSTATE, PostgreSQL's "Error Codes" appendix) the server tells
 * apart, each named once. A code is compared through its name here, never as a literal.
 */
export const UNIQUE_VIOLATION = '23505';
export const DIVISION_BY_ZERO = '22012';
export const DEADLOCK_DETECTED = '40P01';
export const QUERY_CANCELED = '57014';
export const UNDEFINED_TABLE = '42P01';
export const INVALID_SCHEMA_NAME = '3F000';
export const ADMIN_SHUTDOWN = '57P01';
export const CRASH_SHUTDOWN = '57P02';
export const CANNOT_CONNECT_NOW = '57P03';
/** `disk_full`: PGlite raises it too when the data dir's file system is full. */
export const DISK_FULL = '53100';
/** Ours: raised by `arbiter_require_active_keys` (migration 0026) when a key is no longer active. */
export const KEY_NOT_ACTIVE = 'AR401';

/** Classes (a code's first two characters). */
export const CONNECTION_EXCEPTION_CLASS = '08';
export const DATA_EXCEPTION_CLASS = '22';
export const INTEGRITY_CONSTRAINT_VIOLATION_CLASS = '23';
export const PROGRAM_LIMIT_EXCEEDED_CLASS = '54';

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * The SQLSTATE of a database error, or null: the driver's error carries it as `code`, and
 * drizzle wraps that error (DrizzleQueryError) with the driver's as `cause`.
 */
export function sqlStateOf(error: unknown): string | null {
  for (let e = error as { code?: unknown; cause?: unknown } | null; e; e = e.cause as never) {
    if (typeof e !== 'object') return null;
    if (typeof e.code === 'string' && SQLSTATE.test(e.code)) return e.code;
  }
  return null;
}

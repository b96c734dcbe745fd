import { stdSerializers } from 'pino';

/**
 * Fields an error may carry into a log line. Everything else is dropped: drizzle's
 * DrizzleQueryError and PGlite's errors carry `query` and `params` (a new key's hash and
 * ciphertext, say), and PostgreSQL's `detail`/`where` quote the values of the failing row
 * ("Key (key_hash)=(…) already exists"). An allowlist, not a blocklist, so a field a driver
 * adds later stays out of the log until someone decides it is safe.
 */
const KEPT_FIELDS = new Set([
  'type',
  'message',
  'stack',
  'code',
  'statusCode',
  'severity',
  'constraint',
  'table',
  'column',
  'schema',
  'routine',
  'errno',
  'syscall',
  'address',
  'port',
  'aggregateErrors',
]);

const REDACTED = '[redacted]';

/** The SQL parameters any error of the chain carries (drizzle keeps them on its wrapper). */
function paramsOfChain(err: unknown): string[] {
  const values: string[] = [];
  const seen = new Set<unknown>();
  let at: unknown = err;
  while (typeof at === 'object' && at !== null && !seen.has(at)) {
    seen.add(at);
    const params = (at as { params?: unknown }).params;
    if (Array.isArray(params)) {
      for (const value of params) {
        if (value === null || value === undefined) continue;
        const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
        // Shorter values (a scope name, a count) are no secret and would mangle the message.
        if (text.length >= 4) values.push(text);
      }
    }
    at = (at as { cause?: unknown }).cause;
  }
  // Longest first, so a value that contains another is replaced whole.
  return values.sort((a, b) => b.length - a.length);
}

/** Drizzle writes "Failed query: <sql>\nparams: <values>" into the message and so the stack. */
function redactText(text: string, params: string[]): string {
  let out = text.replace(/\nparams: [^\n]*/g, `\nparams: ${REDACTED}`);
  for (const value of params) out = out.split(value).join(REDACTED);
  return out;
}

/**
 * pino's `err` serializer with the SQL parameters taken out: the standard serialization
 * (message and stack with their causes), then only the allowed fields, with any parameter
 * value the message or stack quotes replaced.
 */
export function logSafeError(err: unknown): unknown {
  const full = stdSerializers.err(err as Error) as unknown as Record<string, unknown>;
  if (typeof full !== 'object' || full === null || !('message' in full)) return full;
  const params = paramsOfChain(err);
  const safe: Record<string, unknown> = {};
  for (const key of Object.keys(full)) {
    if (!KEPT_FIELDS.has(key)) continue;
    const value = full[key];
    if (key === 'aggregateErrors' && Array.isArray(value))
      safe[key] = (err as AggregateError).errors.map(logSafeError);
    else safe[key] = typeof value === 'string' ? redactText(value, params) : value;
  }
  return safe;
}

import { type DestinationStream, type Logger, pino } from 'pino';
import { logSafeError } from './db/log-safe-error.ts';
import { type LogFormat, prettyLogStream } from './pretty-log-stream.ts';

/**
 * The process's logger. Errors pass through `logSafeError`, under either name they are logged
 * with, so no SQL parameter (a key's hash, a ciphertext, a user's value) reaches a line; the
 * credential headers are censored should a request's headers ever be logged. The redaction and
 * serializers run before a line is formatted, so `pretty` lines carry no more than JSON ones.
 * A given destination (tests) always gets JSON.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  format: LogFormat = 'json',
): Logger {
  const options = {
    level,
    serializers: { err: logSafeError, error: logSafeError },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'headers.authorization',
        'headers["x-api-key"]',
      ],
      censor: '[redacted]',
    },
  };
  if (destination !== undefined) return pino(options, destination);
  return format === 'pretty' ? pino(options, prettyLogStream()) : pino(options);
}

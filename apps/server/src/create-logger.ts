import { type DestinationStream, type Logger, pino } from 'pino';
import { logSafeError } from './db/log-safe-error.ts';

/**
 * The process's logger. Errors pass through `logSafeError`, under either name they are logged
 * with, so no SQL parameter (a key's hash, a ciphertext, a user's value) reaches a line; the
 * credential headers are censored should a request's headers ever be logged.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
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
  return destination === undefined ? pino(options) : pino(options, destination);
}

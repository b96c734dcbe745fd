import type { Logger } from '../types.ts';

/** Lines start with the product name so that they can be found in a host application's logs. */
export function defaultLogger(): Logger {
  return {
    warn: (message) => console.warn(`[arbiter] ${message}`),
    error: (message) => console.error(`[arbiter] ${message}`),
  };
}

/** A logger must never be the reason a caller sees an exception. */
export function safeLogger(logger: Logger): Logger {
  return {
    warn: (message) => {
      try {
        logger.warn(message);
      } catch {}
    },
    error: (message) => {
      try {
        logger.error(message);
      } catch {}
    },
    debug: (message) => {
      try {
        logger.debug?.(message);
      } catch {}
    },
  };
}

import { PinoPretty } from 'pino-pretty';
import { REQUEST_LINE_FIELDS } from './http/request-log-line.ts';

export type LogFormat = 'json' | 'pretty';

/**
 * The log's format: `ARBITER_LOG_FORMAT` when set, otherwise short readable lines for a person
 * at a terminal and JSON lines for whatever reads a pipe or a file (a collector, journald).
 */
export function logFormatOf(setting: LogFormat | null, stdoutIsTerminal: boolean): LogFormat {
  return setting ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/**
 * One short line per entry on stdout: time, level, message, and the entry's own fields inline.
 * Synchronous, so the last lines are out before the process exits. The request line's fields
 * are left out, as its message already says them.
 */
export function prettyLogStream() {
  return PinoPretty({
    destination: 1,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', ...REQUEST_LINE_FIELDS].join(','),
  });
}

import { DataDirInUseError } from './db/data-dir-lock.ts';

/** The first line of a message, cut short: a failure is one sentence, never a dump of source. */
function firstLine(message: string): string {
  const line = message.split('\n')[0]?.trim() ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * One sentence for a command that failed at run time: what happened and, where we know it,
 * what to do. Stacks belong in bug reports, not in a terminal that ran `arbiter serve`.
 */
export function describeFailure(command: string, error: unknown): string {
  if (error instanceof DataDirInUseError) return error.message;
  const e = error as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code === 'EADDRINUSE')
    return `port ${e.port} on ${e.address} is already in use; set ARBITER_PORT to a free port (0 picks one)`;
  if (e?.code === 'EACCES' && e.syscall === 'listen')
    return `not allowed to listen on port ${e.port} of ${e.address}; pick a port above 1023 with ARBITER_PORT`;
  if (e?.code === 'EADDRNOTAVAIL')
    return `${e.address} is not an address of this machine; check ARBITER_HOST`;
  if (e?.code === 'ECONNREFUSED')
    return `${command} could not reach ${e.address ?? 'the database'}:${e.port ?? ''} (connection refused); check ARBITER_DATABASE_URL`;
  const message = error instanceof Error ? error.message : String(error);
  return `${command} failed: ${firstLine(message) || (error as Error)?.name || 'unknown error'}`;
}

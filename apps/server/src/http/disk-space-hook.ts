import type { onRequestAsyncHookHandler } from 'fastify';
import type { DiskGuard } from '../db/disk-guard.ts';
import { ProblemError } from './problems.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that writes nothing (assign): still served while the disk is nearly full. */
    readOnly?: boolean;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * Near the threshold every write reads the free space again, so a retry sees space as soon as
 * it is back: a client waits as long as for the other transient 5xx answers, not half a minute.
 */
export const DISK_RETRY_AFTER_SECONDS = 5;

function mib(bytes: number): string {
  return `${Math.floor(bytes / 1048576)} MiB`;
}

/**
 * Refuses every write while the embedded database's disk is below its free-space threshold,
 * before anything is read or stored: a 507 the clients retry (it is a 5xx) with the same
 * event ids, so nothing they were told is accepted is at risk, and nothing new is taken.
 */
export function diskSpaceHook(guard: DiskGuard): onRequestAsyncHookHandler {
  return async (request) => {
    if (READ_METHODS.has(request.method) || request.routeOptions.config.readOnly === true) return;
    const status = await guard.status();
    if (status.writes_accepted) return;
    const free =
      status.free_bytes === null
        ? `its free space cannot be read (${status.error ?? 'unknown'})`
        : `${mib(status.free_bytes)} free`;
    throw new ProblemError(
      'insufficient-storage',
      `The database's disk (${status.path}) has ${free}, below the ${mib(status.min_free_bytes)} ARBITER_MIN_FREE_DISK_BYTES keeps for it, so nothing is written; reads go on. Writes resume by themselves once space is freed.`,
      { free_bytes: status.free_bytes, min_free_bytes: status.min_free_bytes },
      { 'retry-after': String(DISK_RETRY_AFTER_SECONDS) },
    );
  };
}

import type { onRequestAsyncHookHandler } from 'fastify';
import type { Lifecycle } from '../kernel/lifecycle.ts';
import { ProblemError } from './problems.ts';

/** A client retries soon: another process (or this one restarted) takes the request. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Once the process is closing, a request that still arrives on a kept-alive connection is
 * refused before anything is read or stored, with a problem the clients retry (a 503 with
 * `Retry-After`), and the connection is closed so the retry opens a new one elsewhere.
 * Fastify's own answer while closing (`return503OnClosing`) is off: it is a bare framework body.
 */
export function closingHook(lifecycle: Lifecycle): onRequestAsyncHookHandler {
  return async () => {
    if (lifecycle.phase !== 'closing') return;
    throw new ProblemError(
      'shutting-down',
      'This process is shutting down and took nothing of this request; retry it after Retry-After seconds (a load balancer sends it to another process).',
      {},
      { 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' },
    );
  };
}

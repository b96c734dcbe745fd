/**
 * Where the process is in its life. `stopping`: a stop signal came; readiness fails so load
 * balancers take it out of rotation, and requests are still served. `closing`: the listener is
 * closing; a request that still arrives is refused with a 503 the client retries elsewhere.
 */
export type Phase = 'serving' | 'stopping' | 'closing';

export class Lifecycle {
  private current: Phase = 'serving';

  get phase(): Phase {
    return this.current;
  }

  /** Readiness fails from now on; requests are still served. */
  stop(): void {
    if (this.current === 'serving') this.current = 'stopping';
  }

  /** Requests that arrive from now on are refused. */
  close(): void {
    this.current = 'closing';
  }
}

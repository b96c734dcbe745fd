/**
 * Background timers must not keep a Node process alive: a host that is done should exit, and
 * `close()` (or the beforeExit hook) delivers what is left. Browsers have no unref.
 */
export function backgroundTimeout(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(fn, ms);
  const handle = timer as unknown as { unref?: () => void };
  if (typeof handle.unref === 'function') handle.unref();
  return timer;
}

import FindMyWay from 'find-my-way';

const noop = () => {};

/**
 * Longest path segment the router reads, in characters as sent (percent-encoded): above every
 * documented parameter's maxLength however its characters encode (200 × 12 bytes), so a long
 * parameter meets its schema (400 with a pointer) and only an absurd one the router (414).
 */
export const MAX_PARAM_LENGTH = 4096;

/**
 * The methods each registered path answers, matched the way Fastify's own router matches
 * (find-my-way), so an unrouted request can be told apart: a path that exists under other
 * methods answers 405 with `Allow`, anything else 404.
 */
export class RouteMethods {
  private readonly router = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  private readonly methods = new Set<string>();
  private readonly seen = new Set<string>();

  add(method: string | string[], url: string): void {
    // The CORS preflight answers OPTIONS on every path; it says nothing about which paths exist.
    if (url === '*' || url === '/*') return;
    for (const m of Array.isArray(method) ? method : [method]) {
      const key = `${m} ${url}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.methods.add(m);
      this.router.on(m as never, url, noop);
    }
  }

  /** The methods `path` answers, sorted; empty when no route has this path. */
  allowed(path: string): string[] {
    const found = [...this.methods].filter((m) => this.router.find(m as never, path) !== null);
    return found.length === 0 ? [] : [...new Set([...found, 'OPTIONS'])].sort();
  }
}

import { type QueryKey, useQuery } from '@tanstack/react-query';

/**
 * A hook that reads one route: its arguments make the query key and the request alike, so a
 * page asks with the same words it caches under. Options that differ per route (polling, retry,
 * a placeholder while the next page loads) stay with the routes that need them.
 */
export function queryHook<A extends unknown[], T>(
  key: (...args: A) => QueryKey,
  fetch: (...args: A) => Promise<T>,
) {
  return (...args: A) => useQuery({ queryKey: key(...args), queryFn: () => fetch(...args) });
}

/**
 * `items.map(work)` with at most `limit` calls in flight, results in the items' order. After a
 * failure no new call starts; it rejects with the first failure once the calls in flight settle.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const at = next++;
      try {
        results[at] = await work(items[at] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  const settled = await Promise.allSettled(workers);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  return results;
}

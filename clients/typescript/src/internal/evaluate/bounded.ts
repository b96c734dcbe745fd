/**
 * Calls `work` on each value `source` yields, in the order yielded, with at most `limit` calls
 * running at once. The first failure (of `work` or of `source`) stops taking new values; the
 * calls already running finish, then it is thrown.
 */
export async function forEachBounded<T>(
  source: AsyncIterable<T>,
  limit: number,
  work: (value: T) => Promise<void>,
): Promise<void> {
  const iterator = source[Symbol.asyncIterator]();
  let failure: { error: unknown } | null = null;
  // An async generator queues overlapping next() calls, so the workers share it safely.
  const worker = async () => {
    while (failure === null) {
      let step: IteratorResult<T>;
      try {
        step = await iterator.next();
      } catch (error) {
        failure ??= { error };
        return;
      }
      if (step.done || failure !== null) return;
      try {
        await work(step.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  if (failure !== null) {
    await iterator.return?.();
    throw (failure as { error: unknown }).error;
  }
}

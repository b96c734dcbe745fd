import { AsyncLocalStorage } from 'node:async_hooks';
import type { AsyncContext } from './user-context.ts';

/** AsyncLocalStorage follows the value through every await, so concurrent requests never mix. */
export function nodeAsyncContext<T>(): AsyncContext<T> {
  const storage = new AsyncLocalStorage<T>();
  return {
    run: (value, fn) => storage.run(value, fn),
    current: () => storage.getStore(),
  };
}

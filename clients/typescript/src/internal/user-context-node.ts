import { AsyncLocalStorage } from 'node:async_hooks';
import type { UserContext } from './user-context.ts';

/** AsyncLocalStorage follows the user through every await, so concurrent requests never mix. */
export function nodeUserContext(): UserContext {
  const storage = new AsyncLocalStorage<string>();
  return {
    run: (user, fn) => storage.run(user, fn),
    current: () => storage.getStore(),
  };
}

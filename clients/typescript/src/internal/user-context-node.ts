import { AsyncLocalStorage } from 'node:async_hooks';
import type { CurrentUser, UserContext } from './user-context.ts';

/** AsyncLocalStorage follows the user through every await, so concurrent requests never mix. */
export function nodeUserContext(): UserContext {
  const storage = new AsyncLocalStorage<CurrentUser>();
  return {
    run: (who, fn) => storage.run(who, fn),
    current: () => storage.getStore(),
  };
}

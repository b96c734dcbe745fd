import type { CurrentUser, UserContext } from './user-context.ts';

/**
 * Browsers have no AsyncLocalStorage. A page serves one user, so the user of the innermost
 * running `withUser` is the current one until the promise `fn` returned settles. Overlapping
 * `withUser` calls for different users in one page would see each other's user; use
 * `interceptModelCall` there.
 */
export function browserUserContext(): UserContext {
  const active: CurrentUser[] = [];
  const leave = (who: CurrentUser) => {
    const at = active.lastIndexOf(who);
    if (at >= 0) active.splice(at, 1);
  };
  return {
    run<R>(who: CurrentUser, fn: () => R): R {
      active.push(who);
      let result: R;
      try {
        result = fn();
      } catch (err) {
        leave(who);
        throw err;
      }
      if (isPromiseLike(result)) {
        void Promise.resolve(result).then(
          () => leave(who),
          () => leave(who),
        );
      } else {
        leave(who);
      }
      return result;
    },
    current: () => active[active.length - 1],
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

import type { AsyncContext } from './user-context.ts';

/**
 * Browsers have no AsyncLocalStorage. A page serves one user, so the value of the innermost
 * running `run` is the current one until the promise `fn` returned settles. Overlapping runs
 * with different values in one page would see each other's value; use `interceptModelCall`
 * there (and `concurrency: 1` for `evaluate`).
 */
export function browserAsyncContext<T>(): AsyncContext<T> {
  const active: T[] = [];
  const leave = (who: T) => {
    const at = active.lastIndexOf(who);
    if (at >= 0) active.splice(at, 1);
  };
  return {
    run<R>(who: T, fn: () => R): R {
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

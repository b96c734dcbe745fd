import type { Attributes } from '../types.ts';

/** Who a `withUser(user, fn, attributes)` runs for. */
export interface CurrentUser {
  readonly user: string;
  readonly attributes: Attributes | undefined;
}

/** Which user (and attributes) the model calls made inside `withUser(user, fn)` belong to. */
export interface UserContext {
  run<R>(who: CurrentUser, fn: () => R): R;
  current(): CurrentUser | undefined;
}

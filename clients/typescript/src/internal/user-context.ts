/** Which user the model calls made inside `withUser(user, fn)` belong to. */
export interface UserContext {
  run<R>(user: string, fn: () => R): R;
  current(): string | undefined;
}

import type { PreparedAttributes } from '../prepared-attributes.ts';
import type { Attributes } from '../types.ts';

/** What every method that reads a user's attributes takes: plain, or prepared once. */
export type AnyAttributes = Attributes | PreparedAttributes;

/** Who a `withUser(user, fn, attributes)` runs for. */
export interface CurrentUser {
  readonly user: string;
  readonly attributes: AnyAttributes | undefined;
  /** The stored prompt of `withPrompt(prompt, fn)`: its model calls record its name and version. */
  readonly prompt?: PromptVersionRef | undefined;
}

/** A stored prompt's name and version, as a recorded model call carries them. */
export interface PromptVersionRef {
  readonly name: string;
  readonly version: number;
}

/** A value that follows the work `fn` starts, through its awaits. */
export interface AsyncContext<T> {
  run<R>(value: T, fn: () => R): R;
  current(): T | undefined;
}

/** Which user (and attributes) the model calls made inside `withUser(user, fn)` belong to. */
export type UserContext = AsyncContext<CurrentUser>;

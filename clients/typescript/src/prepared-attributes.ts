import type { FieldTable } from '@arbiter/conditions';
import type { Attributes } from './types.ts';

/**
 * A user's attributes prepared once (per request, say) for many `assign`, `getPrompt`,
 * `getVariables`, `withUser` or model calls: each config's targeting reads every field it needs
 * once, on the first call, and later calls read them by index. Every method that takes
 * `Attributes` takes one, and answers exactly as it does for the plain object.
 *
 * The top-level object is copied when prepared, so later changes to it are not seen; nested
 * values are not copied and must not be changed afterwards. Never throws: a value that is not an
 * object behaves as it does when passed plain.
 */
export class PreparedAttributes {
  /** @internal What was prepared: the top-level copy, or the value itself when not an object. */
  readonly source: unknown;
  // One cached resolution: the field table of the config it was read for, and its values (null:
  // the fields could not be read, so the source is evaluated as a plain object is).
  #table: FieldTable | null = null;
  #values: readonly unknown[] | null = null;

  constructor(attributes?: Attributes | null) {
    this.source = topLevelCopy(attributes);
  }

  /**
   * @internal The values of `table`'s fields, read on the first use with that table; a table of
   * another config replaces the cached one. Null when they cannot be read.
   */
  valuesFor(table: FieldTable): readonly unknown[] | null {
    if (this.#table !== table) {
      this.#values = table.resolve(this.source ?? EMPTY);
      this.#table = table;
    }
    return this.#values;
  }
}

const EMPTY = Object.freeze({});

/**
 * A copy of the top level of a JSON object or array; anything else (a class instance included)
 * as it is. A copy that throws (a getter) keeps the original, which then answers as it does today.
 */
function topLevelCopy(attributes: unknown): unknown {
  if (typeof attributes !== 'object' || attributes === null) return attributes;
  try {
    if (Array.isArray(attributes)) return attributes.slice();
    const prototype = Object.getPrototypeOf(attributes);
    if (prototype !== Object.prototype && prototype !== null) return attributes;
    return { ...attributes };
  } catch {
    return attributes;
  }
}

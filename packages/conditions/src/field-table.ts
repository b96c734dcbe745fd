// A config's field table: every distinct field path its conditions read, numbered 0..n-1, so
// that a user's attributes can be read once into an array and then evaluated by index by every
// condition of the config (a client's PreparedAttributes).
import { type FieldPath, fieldPath, readPath } from './field-path.ts';

/**
 * Indexes are handed out while the config's conditions are compiled (`indexOf`) and never
 * change; a table is complete once its config is, and is read-only from then on.
 */
export class FieldTable {
  readonly #indexes = new Map<string, number>();
  readonly #paths: FieldPath[] = [];

  /** The index of the field named `key` (a dotted path), numbering it when it is new. */
  indexOf(key: string): number {
    let index = this.#indexes.get(key);
    if (index === undefined) {
      index = this.#paths.push(fieldPath(key)) - 1;
      this.#indexes.set(key, index);
    }
    return index;
  }

  get size(): number {
    return this.#paths.length;
  }

  /** The dotted names by index, for tests and diagnostics. */
  get keys(): readonly string[] {
    return [...this.#indexes.keys()];
  }

  /**
   * The value of every field, by index: what a plain read of the attributes gives (null for a
   * missing field). Null when a read throws (a getter, a proxy, attributes deeper than the
   * stack): the caller then evaluates the attributes themselves, which answer as they do today.
   */
  resolve(attributes: unknown): unknown[] | null {
    const paths = this.#paths;
    const values = new Array<unknown>(paths.length);
    try {
      for (let i = 0; i < paths.length; i++)
        values[i] = readPath(attributes, paths[i] as FieldPath);
    } catch {
      return null;
    }
    return values;
  }
}

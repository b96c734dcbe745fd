import { sameValue } from './json-values.ts';
import { innerCache } from './nested-cache.ts';

/** Saved groups by key: the values `$inGroup` looks a user's attribute up in. */
export type SavedGroups = Readonly<Record<string, unknown>>;

/**
 * Whether a value is in a list (by `sameValue`, strings lowercased when insensitive); an array
 * value is when any of its elements is. Strings, numbers and booleans are looked up in a set,
 * so a long list or saved group costs no more than a short one.
 */
export class Membership {
  private readonly scalars = new Set<unknown>();
  private readonly others: unknown[] = [];
  /** The strings of a short list, also as an array: a few `===` beat hashing the value. */
  private readonly fewStrings: string[] | null;

  constructor(
    list: readonly unknown[],
    private readonly insensitive: boolean,
  ) {
    for (const item of list) {
      if (typeof item === 'string') this.scalars.add(insensitive ? item.toLowerCase() : item);
      else if (typeof item === 'number' || typeof item === 'boolean') this.scalars.add(item);
      else this.others.push(item === undefined ? null : item);
    }
    const strings = [...this.scalars].filter((item) => typeof item === 'string');
    this.fewStrings = strings.length <= FEW ? strings : null;
  }

  /**
   * The list when it is a few strings and nothing else, compared as they are: a generated
   * matcher tests a string against them inline (fast/generated-matcher.ts). Null otherwise.
   */
  get fewStringsOnly(): readonly string[] | null {
    const few = this.fewStrings;
    return few !== null &&
      !this.insensitive &&
      few.length === this.scalars.size &&
      this.others.length === 0
      ? few
      : null;
  }

  has(value: unknown): boolean {
    return Array.isArray(value)
      ? value.some((element) => this.hasOne(element))
      : this.hasOne(value);
  }

  private hasOne(value: unknown): boolean {
    switch (typeof value) {
      case 'string': {
        const text = this.insensitive ? value.toLowerCase() : value;
        const few = this.fewStrings;
        if (few === null) return this.scalars.has(text);
        for (let i = 0; i < few.length; i++) if (few[i] === text) return true;
        return false;
      }
      case 'number':
      case 'boolean':
        return this.scalars.has(value);
      default:
        for (const item of this.others) if (sameValue(value, item)) return true;
        return false;
    }
  }
}

const FEW = 4;

// Saved groups arrive with the config and are evaluated again and again: each group's lookup
// set is built once per groups object.
const groupSets = new WeakMap<object, Map<string, Membership>>();
const EMPTY_GROUP = new Membership([], false);

export function groupMembership(groups: SavedGroups, key: string): Membership {
  const byKey = innerCache(groupSets, groups, Map<string, Membership>);
  let members = byKey.get(key);
  if (members === undefined) {
    // A missing group, or one that is not a list, is empty.
    const values = Object.hasOwn(groups, key) ? groups[key] : undefined;
    members = Array.isArray(values) ? new Membership(values, false) : EMPTY_GROUP;
    byKey.set(key, members);
  }
  return members;
}

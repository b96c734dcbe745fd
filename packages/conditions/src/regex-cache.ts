// Compiled patterns of `$regex` and `$regexi`, by pattern and flag. Conditions come from the
// config, so few patterns recur; the cache is still bounded, against a caller that evaluates
// ever new conditions. A pattern that could backtrack for ever (regex-safety.ts), or one the
// clients would read differently (regex-portability.ts), is never compiled, as an invalid one:
// every evaluator runs the same patterns (docs/wire-format.md#regular-expressions).
import { nonPortableConstruct } from './regex-portability.ts';
import { unsafePattern } from './regex-safety.ts';

const MAX_ENTRIES = 1000;
const cache = new Map<string, RegExp | null>();

/**
 * The pattern compiled (case-insensitive when asked), or null when it is not valid, not safe
 * or not portable.
 */
export function compilePattern(pattern: string, insensitive: boolean): RegExp | null {
  const key = `${insensitive ? 'i' : '-'}${pattern}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let compiled: RegExp | null = null;
  if (unsafePattern(pattern) === undefined && nonPortableConstruct(pattern) === undefined) {
    try {
      compiled = new RegExp(pattern, insensitive ? 'i' : '');
    } catch {
      compiled = null;
    }
  }
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

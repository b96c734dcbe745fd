import { stringForm } from './json-values.ts';

const NUMERIC_PART = /^[0-9]+$/;

/**
 * A version as a string whose plain string order (UTF-16 code units) is the version order,
 * GrowthBook's scheme: a leading `v` and any `+build` suffix are dropped, the rest splits on `-`
 * and `.`, a three-part version gains a `~` part (so a release sorts after its prereleases),
 * numeric parts are left-padded with spaces to five characters, and the parts are joined by `-`.
 * A number reads as its string form; anything that is not a non-empty string or a number reads
 * as "0".
 */
export function paddedVersionString(input: unknown): string {
  const given = typeof input === 'number' ? stringForm(input) : input;
  const text = typeof given === 'string' && given !== '' ? given : '0';
  // Users share a handful of app versions: each is padded once (the cache is bounded).
  let padded = cache.get(text);
  if (padded === undefined) {
    padded = pad(text);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(text, padded);
  }
  return padded;
}

const MAX_CACHED = 1000;
const cache = new Map<string, string>();

function pad(text: string): string {
  const parts = text.replace(/^v/, '').replace(/\+.*$/s, '').split(/[-.]/);
  if (parts.length === 3) parts.push('~');
  return parts.map((part) => (NUMERIC_PART.test(part) ? part.padStart(5, ' ') : part)).join('-');
}
